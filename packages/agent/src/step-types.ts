/**
 * The types of a step and of what `record()` takes, shared by the agent (`agent.ts`) and its forks
 * (`fork.ts`), so neither names the other's module for them.
 * @module
 */
import type { PromptAssembly, RenderedPrompt } from 'dsh-system-prompt'
import type { BreakpointOptions, CacheProvider, CacheReport, ContentPart, Replies, ReplyFacts, ReplyFormat, ReplyPart, RequestBodies, RequestFields, UsageFormat, WireFormat } from 'dsh-wire'
import type { ContextBudget } from './budget.js'
import type { ResumeReport } from './resume-guard.js'
import type { ConversationEntry, ToolCall } from './conversation.js'
import type { Epoch } from './epoch.js'

/**
 * What the model sent back, or a tool result, as given to `agent.record()`. The assistant form accepts
 * the OpenAI SDK's `completion.choices[0].message` as it is typed (its other fields, such as `refusal`
 * or `annotations`, are not recorded). `parts`: the reply in order with its reasoning state and images
 * (what `readReply` makes), or a tool result's text, images and documents; `content` is then their text.
 */
export type RecordedMessage =
  | { role: 'assistant'; content?: string | null; tool_calls?: readonly ToolCall[]; parts?: readonly ReplyPart[] }
  | { role: 'tool'; tool_call_id: string; content: string; name?: string; parts?: readonly ContentPart[] }

/** A provider's whole reply, recorded with `record(reply, { format })`: a chat completion, a Response, a Message or a GenerateContentResponse. */
export type ProviderReply = Replies[ReplyFormat]

/** Options of one step; `X`: the extra body fields given (the request's type carries them). */
export interface StepOptions<F extends WireFormat = 'openai-chat', X extends object = RequestFields<F>> {
  /** Aborts the assembly; the step then rejects with an `AbortError` and records nothing. */
  signal?: AbortSignal
  /**
   * How long the assembly may take, in milliseconds (default: the `agents` service's `stepTimeout`,
   * 60 000; 0: no bound). A step that runs out rejects with `AGENT_STEP_TIMEOUT`, naming the plugins of
   * the assemble listeners that could be holding it, and records nothing.
   */
  timeout?: number
  /**
   * The wire format of the request (default `openai-chat`): `openai-responses` (with the agent's `routingKey` as
   * `prompt_cache_key`), `anthropic` (breakpoints planned) or `gemini`. The record is the same whatever
   * the format, so one conversation can be sent to several providers.
   */
  format?: F
  /**
   * `openai-responses`: the `prompt_cache_key` (default: the agent's `routingKey`, its id or, for a
   * sub-agent, derived from its parent's). Agent ids are unique among live
   * agents only, so a harness that runs many conversations under one id passes its conversation id here.
   */
  conversationId?: string
  /**
   * The provider's own extra body fields, typed per format (`stream`, `stream_options`, `store`,
   * `prompt_cache_retention`, a chat `prompt_cache_key`, sampling settings, ...): merged after dsh's
   * own, so `body` stays `JSON.stringify(request)` and is still extended step by step. A field dsh sets
   * itself (the model, the messages, the system prompt, the tools) is refused with `WIRE_OWNED_FIELD`.
   * A fork repeats the latest step's fields.
   */
  fields?: X & RequestFields<F>
  /** `anthropic`: the `max_tokens` of the body (default 4096). */
  maxTokens?: number
  /** `anthropic`: how `cache_control` breakpoints are planned, or `false` for none. */
  breakpoints?: BreakpointOptions | false
  /**
   * Whose caching rules predict `report.predictedCachedTokens`: a registered provider family (`openai`,
   * `anthropic`, `deepseek`, `gemini`, `xai`, `moonshot`, `qwen`, or one added with `registerProvider`).
   * Default: the agent's `provider` when it names a family that speaks the format (`deepseek` for
   * `openai-chat`), else the format's own family.
   */
  cacheRules?: CacheProvider
}

/** Options of `agent.record()`. */
export interface RecordOptions {
  /**
   * The usage the provider reported for this reply, kept on its conversation entry: a normalised
   * `Usage`, or the provider's own usage object together with `format` (then `normalizeUsage` reads it).
   * A whole provider reply brings its own usage; this replaces it.
   */
  usage?: unknown
  /**
   * The provider format of what is given (default for a `usage` object: the agent's provider's shape
   * for the latest step's format, `usageShapeFor`): a whole reply of that format (a chat completion, a Response,
   * a Message, a GenerateContentResponse; `deepseek` and `openrouter` name chat completions) is read by
   * the format's reader (`readReply`), its usage with it; for a message, the shape of `usage`.
   */
  format?: UsageFormat
  /**
   * The provider's id of the reply and its cache diagnosis, for a reply given as a message (a whole
   * provider reply brings its own): what the diagnostics bridge names in the next request.
   */
  reply?: ReplyFacts
}

/**
 * Everything one step produced, for callers that want more than the request. `request`, `body`,
 * `headers`, `report` and `budget` are accessors of the result's class (`step-result.ts`), not own
 * properties: a spread or `Object.keys` leaves them out.
 */
export interface StepResult<F extends WireFormat = 'openai-chat'> {
  /** The request body in the step's format (a fresh object, made on first read and kept). */
  readonly request: RequestBodies[F]
  assembly: PromptAssembly
  /** What the assembly rendered to, each part with its assembled entry (the CLI shows this; it never renders again). */
  rendered: RenderedPrompt
  /** The system prompt (`rendered.system`). */
  system: string
  /** The runtime-context snapshot (`rendered.snapshot`). */
  snapshot: string
  /**
   * `JSON.stringify(request)`, byte for byte, extended from the previous step's body rather than made
   * again: a harness that sends raw bodies pays for what is new (made on first read, then kept).
   */
  readonly body: string
  /**
   * The HTTP headers the request needs beside the body (`requestHeaders` of dsh-wire): a beta header a
   * format's append path calls for on this and every later request that carries its element (R-TOOL-13),
   * or a field dsh put in the body (Anthropic's `anthropic-beta: cache-diagnosis-2026-04-07` with the
   * diagnostics bridge's `diagnostics`); several betas go in one header, comma-separated; `{}` for none.
   * Send them with the request, e.g. as the official SDK's request options:
   * `client.messages.create(result.request, { headers: result.headers })`.
   */
  readonly headers: Readonly<Record<string, string>>
  /** The entries this step appended to the record. */
  added: readonly ConversationEntry[]
  /**
   * How much of this request repeats the agent's previous request of the same format, what the
   * provider should serve from cache, and why the prefix broke if it did (R-CACHE-2). `record(reply,
   * { usage })` adds the reported cached tokens (and the likely reason when they differ).
   */
  readonly report: CacheReport
  /** The request's size against the agent's model profile, and the compaction advice (`docs/sessions.md`). */
  readonly budget: ContextBudget
  /**
   * Set on the first step of an agent restored from a ledger: whether the prompt it renders differs
   * from the version the ledger sent last, what the step did about it, where and at what cost (R-LEDGER-8).
   */
  resume?: ResumeReport
  /** Set on a fork's result (`agent.fork()`): a side request, recorded nowhere in the agent (`added` is the fork's own). */
  side?: { kind: string }
  /** Set on the first step after a compaction: the epoch it opens (its re-anchor, predicted cost, and `reported` once the reply's usage is recorded). */
  epoch?: Epoch
}
