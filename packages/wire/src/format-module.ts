/**
 * What one wire format is, as a value: everything the generic code (a `WireSession`, the cache stream,
 * the agent's reuse report) needs to know about a provider's request shape, and nothing it has to learn
 * by comparing a format's name. One module per format (`openai-chat.ts`, `openai-responses.ts`,
 * `anthropic.ts`, `gemini.ts`), registered in one table (`format.ts`). Types only.
 * @module
 */
import type { Breakpoint } from './breakpoints.js'
import type { StreamPart, StreamRegion } from './cache-stream.js'
import type { WireInput } from './input.js'
import type { ConversationEntry, ToolCall } from './record.js'
import type { PromptUpdateCapability, PromptUpdateLowering } from './prompt-updates.js'
import type { ToolAppendCapability } from './tool-append.js'
import type { ToolRules } from './tool-rules.js'

/** Finds a recorded tool call by id (tool results name the call they answer). */
export type CallLookup = (id: string) => ToolCall | undefined

/** Each tool of a body: a maker of its stream part, and the tool's name (a caller may reuse a part it made before). */
export type ToolPartMakers = Array<[make: () => StreamPart, name: string]>

/**
 * What a session keeps for a planner between requests: the element list as sent, the sent entries
 * after the opening with their index, and running sums the planner extends (dropped when `counter` changes).
 */
export interface PlannerState {
  readonly elements: readonly object[]
  readonly rest: readonly ConversationEntry[]
  indexOf(item: ConversationEntry): number
  /** Running sums the planner owns: tokens and blocks of elements `0..i`, and the counter they were made with. */
  tokens: number[]
  blocks: number[]
  counter: unknown
  /**
   * `tokens(value)` for the head part `key`, the count made last time when `value` serialises the same
   * and `counter` is the same: the session memoises it (a 36 KB tool list is not counted at every step).
   */
  counted<T>(key: string, value: T, counter: unknown, tokens: (value: T) => number): number
}

/** A format's cache-marker planner (Anthropic's `cache_control` breakpoints). */
export interface BreakpointPlanner<B> {
  /** The points of this request, from the session's running state; `head` is the body without elements. */
  plan(input: WireInput, head: B, state: PlannerState): Breakpoint[]
  /** Marks `points` on `body` (copies of what they mark: the originals may be shared). */
  mark(body: B, points: readonly Breakpoint[]): void
  /** A copy of `element` with the block `point` names marked. */
  markElement(element: object, point: Breakpoint): object
}

/** One wire format. `B` is its request body. */
export interface WireFormatModule<B extends { model: string } = { model: string }> {
  /** The format's name (`buildRequest(name, input)`, `step({ format })`). */
  readonly name: string
  /** The provider family whose caching rules a request of this format follows unless told otherwise. */
  readonly provider: string
  /**
   * The body fields dsh sets itself (`model`, the element list, the system prompt, the tools): an extra
   * field of one of these names is refused (`WIRE_OWNED_FIELD`). `a.b` names a field nested in `a`,
   * which takes other extra fields merged into it (`gemini`'s `config.systemInstruction`). Default:
   * `model` and the element list.
   */
  readonly ownedFields?: readonly string[]
  /** The key of the element list in the body (`messages`, `input`, `contents`). */
  readonly elementsKey: string
  /**
   * Whether the opening system prompt is the first element of that list (`openai-chat`'s
   * `messages[0]`): then its coming or going moves every element's index, and a break there names
   * message 0.
   */
  readonly openingIsElement: boolean
  /** The regions in the order the provider hashes them (after the model). */
  readonly order: readonly StreamRegion[]
  /**
   * The elements of one sent entry (`calls` finds the call a tool result answers; `update`: how a
   * system-prompt version after the opening is lowered, `promptUpdateLowering` of `promptUpdates`).
   */
  lower(item: ConversationEntry, calls: CallLookup, update?: PromptUpdateLowering): readonly object[]
  /**
   * How a system-prompt version after the opening is sent under `append`: one lowering for every model,
   * or a provider's dated table of the models that take a mid-conversation system message (default `marker`).
   */
  readonly promptUpdates?: PromptUpdateCapability
  /**
   * The body for the opening system prompt and `elements` (which becomes the body's own list).
   * `internal`: the body stays with the session (a step's head), so a module may use frozen parts it
   * shares between steps; a body handed to the caller is made of its own objects.
   */
  body(input: WireInput, opening: ConversationEntry | undefined, elements: object[], internal?: boolean): B
  /** Content blocks of an element (a lookback that counts blocks reads this). */
  blocks(element: object): number
  /** The stream parts of the body's system prompt (none when it has none). */
  systemParts(body: B): StreamPart[]
  /** The body's tools, each with a maker of its stream part. */
  toolParts(body: B): ToolPartMakers
  /**
   * What the provider accepts as a tool: the name pattern and the parameter-schema rule, each with its
   * documented source (`tool-rules.ts`). The body refuses a tool that breaks them (`WIRE_INVALID_TOOL_NAME`,
   * `WIRE_INVALID_TOOL_PARAMETERS`); `toolProblems` lists them all without throwing.
   */
  readonly toolRules: ToolRules
  /**
   * The body fields that ask the provider to compare this request with the one that got reply
   * `previous` (the diagnostics bridge, `provider-miss.ts`); `previous` is `undefined` before any reply.
   * Absent for a format whose provider offers no such comparison.
   */
  diagnosticsFields?(previous: string | undefined): Record<string, unknown> | undefined
  /** An optional cache-marker planner; `input.breakpoints: false` turns it off. */
  readonly planner?: BreakpointPlanner<B>
  /**
   * The provider's documented append path for a tool that appears mid-conversation, or why it has none
   * (`tool-append.ts`, R-TOOL-13). Its lowering of a user entry with `toolAdditions` sends them by it.
   * Absent: no documented path (an added tool is declared at once).
   */
  readonly toolAppend?: ToolAppendCapability
  /**
   * The HTTP headers a body needs beside the body (a beta header its elements or fields call for: an
   * append path's element, the diagnostics bridge's field); none when absent. `requestHeaders` reads it.
   */
  headers?(body: B): Readonly<Record<string, string>> | undefined
}

