/**
 * Forks: side requests (`compact`, `title`, `aside`, ...) that repeat an agent's latest request byte
 * for byte and add one trailing user message, so the provider serves the whole shared prefix from its
 * cache (issue 21, item 1). A fork assembles for the agent's scope as a step would, lowers on a copy
 * of the agent's wire session (the same elements, the same Anthropic breakpoints), is measured against
 * the agent's latest request without moving the agent's figures, and records nothing in the agent: its
 * request and its reply live in the `Fork`, never in the agent's record or ledger.
 * @module
 */
import type { PromptAssembly } from 'dsh-system-prompt'
import { renderAssembly } from 'dsh-system-prompt'
import { entry, type CacheBreak, type CacheProvider, type ContentPart, type TokenCounter, type WireFormat, type WireInput, type WireSession, type WireTool } from 'dsh-wire'
import type { ProviderReply, RecordedMessage, RecordOptions, StepResult } from './step-types.js'
import type { BudgetTracker } from './budget.js'
import type { ReuseTracker } from './cache-report.js'
import { stepEntries, type ConversationEntry, type PromptChangePolicy, type UserInput } from './conversation.js'
import { forkToolRefused, forkWithoutRequest, invalidFork } from './errors.js'
import { recordedEntry } from './recorded-entry.js'
import { StepOutcome } from './step-result.js'

/** How a fork treats the tools it declares: `inert` (the only kind so far) declares them and refuses every call. */
export type ForkTools = 'inert'

/** Options of `agent.fork()`. */
export interface ForkOptions<F extends WireFormat = WireFormat> {
  /** What the side request is for (`compact`, `title`, `aside`, or a name of the harness's own): the mark on its report and event. */
  kind: string
  /** The trailing user message: what the model is asked (text, or content parts as `step()` takes them). */
  instruction: string | readonly ContentPart[]
  /** `inert` (default): the parent's tools are declared, so the prefix is the parent's, and a reply that calls one is refused. */
  tools?: ForkTools
  /** The wire format (default: the format of the agent's latest request); the agent must have sent one of this format. */
  format?: F
  /** Aborts the fork's assembly (it then rejects with an `AbortError`). */
  signal?: AbortSignal
  /** How long the assembly may take, in milliseconds (default: the agent's `stepTimeout`). */
  timeout?: number
}

/** The agent's latest step of one format: what its request was built with besides the record and the tools. */
export interface LatestStep {
  readonly input: Pick<WireInput, 'conversationId' | 'maxTokens' | 'breakpoints' | 'fields' | 'promptUpdates'>
  readonly provider: CacheProvider
  /** The tools it declared (the agent's tool-change policy may keep tools the assembly no longer offers). */
  readonly tools?: readonly WireTool[]
}

/** What a fork reads of its agent at the moment it forks (the agent hands it over; `fork.ts` owns the rest). */
export interface ForkSource<F extends WireFormat> {
  /** The agent's facts a fork's request and errors use. */
  readonly agent: { readonly id: string; readonly model: string; readonly promptChange: PromptChangePolicy }
  readonly format: F
  /** The agent's latest step of `format`, if any. */
  readonly latest: LatestStep | undefined
  readonly session: WireSession<F>
  readonly reuse: ReuseTracker
  readonly budget: BudgetTracker
  /** The agent's record as it stands after the assembly (read late: a step may record meanwhile). */
  record(): readonly ConversationEntry[]
  /** The agent's latest system-prompt and runtime-context entries. */
  newest(): { system?: ConversationEntry; snapshot?: ConversationEntry }
  /** Runs the agent's assembly, bounded by `options` as a step's is. */
  assemble(options: ForkOptions<F>): Promise<PromptAssembly>
  /** `step()`'s input checks, applied to the instruction. */
  userInput(input: unknown): string | UserInput | undefined
  /** Throws if the agent was disposed meanwhile. */
  alive(): void
  /** The replies the agent recorded (a fork's reply is numbered after them). */
  replies(): number
  /** Emits `agent/step` with the fork's result. */
  emit(result: StepResult<F>): void
  /** The system prompt a step would send for `rendered` (a restored agent may send the stored one: `resume-guard.ts`). */
  system(rendered: string): string
  /** The agent's clock (the `agents` service's `now`). */
  now(): number
}

/** One side request of an agent and what was recorded into it. */
export class Fork<F extends WireFormat = WireFormat> {
  /** The entries the fork adds after the agent's record: a changed prompt or snapshot, if any, its instruction, then what `record()` took. */
  readonly conversation: ConversationEntry[]
  private readonly replies: number

  /** @internal Made by `agent.fork()`. */
  constructor(
    private readonly agent: { readonly id: string },
    readonly kind: string,
    readonly tools: ForkTools,
    /** The fork's step result: its request, body, assembly and report (`side: { kind }` on both). */
    readonly result: StepResult<F>,
    private readonly divergence: CacheBreak | null,
    replies: number,
  ) {
    this.conversation = [...result.added]
    this.replies = replies
  }

  /** The fork's request body. */
  get request(): StepResult<F>['request'] {
    return this.result.request
  }

  /** `JSON.stringify(request)`: the agent's latest body with the trailing message added. */
  get body(): string {
    return this.result.body
  }

  /** The HTTP headers the fork's request needs beside the body (the agent's latest request's: R-TOOL-13). */
  get headers(): Readonly<Record<string, string>> {
    return this.result.headers
  }

  /** The reuse report, measured against the agent's latest request of the format (`side: { kind }`). */
  get report(): StepResult<F>['report'] {
    return this.result.report
  }

  /**
   * The first place where the fork's request stops repeating the agent's latest request of its format
   * (the section, tool or message, its owner and the cause), or `null` when it repeats it whole and only
   * adds what the agent recorded since and the trailing instruction.
   */
  parity(): CacheBreak | null {
    return this.divergence
  }

  /**
   * Records the model's answer to the fork (a message or a whole provider reply with its `format`, as
   * `agent.record()` takes them) into the fork, never into the agent. A reply that calls a tool is
   * refused with `AGENT_FORK_TOOL_REFUSED`, naming the calls, and recorded nowhere.
   */
  record(message: RecordedMessage | ProviderReply, options: RecordOptions = {}): void {
    const turn = this.replies + this.conversation.filter((item) => item.source === 'assistant').length
    const { item, usage } = recordedEntry(this.agent.id, message, options, turn)
    if (item.role === 'assistant' && item.tool_calls?.length) {
      throw forkToolRefused(this.agent.id, this.kind, item.tool_calls.map((call) => ({ id: call.id, name: call.type === 'function' ? call.function.name : call.custom.name })))
    }
    if (item.role === 'tool') throw forkToolRefused(this.agent.id, this.kind, [{ id: item.tool_call_id, name: item.name ?? '(unnamed)' }])
    this.conversation.push(item)
    if (usage) this.result.report.reportedCachedTokens = usage.cachedReadTokens
  }
}

/** Makes the fork `options` ask for from what `source` holds (the body of `agent.fork()`). */
export async function makeFork<F extends WireFormat>(source: ForkSource<F>, options: ForkOptions<F>, counterOf: (provider: CacheProvider) => Promise<TokenCounter>): Promise<Fork<F>> {
  const { agent, format } = source
  if (typeof options !== 'object' || options === null) throw invalidFork(agent.id, 'options must be an object with kind and instruction')
  const { kind } = options
  if (typeof kind !== 'string' || kind === '') throw invalidFork(agent.id, `kind must be a non-empty string, received ${typeof kind === 'string' ? '""' : typeof kind}`)
  const tools = options.tools ?? 'inert'
  if (tools !== 'inert') throw invalidFork(agent.id, `tools must be "inert" (a fork declares its agent's tools and refuses calls to them), received ${JSON.stringify(tools)}`)
  const instruction = instructionOf(source, options.instruction)
  const latest = source.latest
  if (!latest) throw forkWithoutRequest(agent.id, kind, format)
  const assembly = await source.assemble(options)
  const rendered = renderAssembly(assembly)
  const counter = await counterOf(latest.provider)
  options.signal?.throwIfAborted()
  source.alive()
  // What a step would add first (a changed prompt or snapshot), then the instruction, last.
  const record = source.record()
  const system = source.system(rendered.system)
  const changed = stepEntries(record, system, undefined, rendered.snapshot, source.newest())
  const trailing = typeof instruction === 'string'
    ? entry({ role: 'user', content: instruction }, 'user')
    : entry({ role: 'user', content: instruction.content, parts: instruction.parts }, 'user')
  const added = [...changed, trailing]
  const build = source.session.fork({ ...latest.input, record: [...record, ...added], tools: latest.tools ?? assembly.tools, model: agent.model, promptChange: agent.promptChange })
  const side = { kind }
  const report = source.reuse.measureSide({ format, provider: latest.provider, build, rendered, assembly, now: source.now() }, counter, side)
  const divergence = report.breaks[0] ?? changedBefore(changed, () => source.reuse.sectionChange(format, rendered, assembly))
  const budget = source.budget.measureSide(report.requestTokens, report.tokenizer)
  const measures = { report, budget }
  const result = new StepOutcome(build, format, () => measures, assembly, rendered, system, rendered.snapshot, added)
  result.side = side
  source.emit(result)
  return new Fork(agent, kind, tools, result, divergence, source.replies())
}

/** The instruction as the record keeps user input (`step()`'s checks), refused as `AGENT_INVALID_FORK` when it is missing, empty or malformed. */
function instructionOf<F extends WireFormat>(source: ForkSource<F>, given: unknown): string | UserInput {
  const { id } = source.agent
  if (given === undefined || given === '' || (Array.isArray(given) && given.length === 0)) throw invalidFork(id, 'instruction (the trailing user message) must be a non-empty text or content parts')
  try {
    return source.userInput(given)!
  } catch (error) {
    const problem = (error as { code?: string; details?: { problem?: string } }).details?.problem
    if ((error as { code?: string }).code !== 'AGENT_INVALID_INPUT') throw error
    throw invalidFork(id, problem === undefined ? 'instruction must be a text or content parts' : `instruction parts: ${problem}`)
  }
}

/** The divergence of entries a fork sends before its instruction: a changed prompt (its section and owner), else a changed snapshot. */
function changedBefore(changed: readonly ConversationEntry[], section: () => CacheBreak | undefined): CacheBreak | null {
  if (changed.some((item) => item.source === 'system-prompt')) {
    return section() ?? { message: null, section: null, kind: 'message', owner: null, layer: null, cause: 'system prompt replaced: the fork sends a new version of the system prompt' }
  }
  if (changed.length === 0) return null
  return {
    message: null, section: null, kind: 'context', owner: null, layer: null,
    cause: 'message changed: the runtime context changed since the latest request, so the fork sends the new snapshot before its instruction',
  }
}
