import type { Context } from 'cordis'
import { listenersFor, type ScopeHandle, type ScopeKey } from 'dsh-scope'
import { renderAssembly, waitingListener, type PromptAssembly, type RenderedPrompt, type SystemPrompt } from 'dsh-system-prompt'
import { abortable, deepFreeze, PromptErrors } from 'dsh-system-prompt/internal'
import {
  buildMessages, checkContentParts, entry, WireSession, type SessionBuild, isProvider, normalizeUsage, providerNames, readReply, replyFormatOf, wireFormat,
  type BreakpointOptions, type ChatRequestMessage, type ContentPart, type Replies, type ReplyFormat, type ReplyPart, type RequestBodies, type Usage, type CacheProvider, type CacheReport,
  type UsageFormat, type WireFormat, type ModelProfile, type ModelProfileOverride,
} from 'dsh-wire'
import type { ToolRegistry } from 'dsh-tools'
import type { DebugLog } from './debug-log.js'
import { BudgetTracker, type ContextBudget } from './budget.js'
import { emitStep } from './step-event.js'
import { EntryShapeError, fail, replyShape, toolResultShape, usageShape } from './entry-shape.js'
import { cacheProviderFor, ReuseTracker } from './cache-report.js'
import { agentDisposed, invalidInput, invalidRecord, invalidStepTimeout, stepTimedOut, unknownCacheRules } from './errors.js'
import {
  stepEntries, type UserInput, type ConversationEntry, type PromptChangePolicy, type ToolCall,
} from './conversation.js'

declare module 'dsh-system-prompt' {
  interface AssembleContext {
    /** The agent this assembly is for (set by `agent.step()`, always together with `scope`). */
    agent?: Agent
  }
}

declare module 'cordis' {
  interface Events {
    /** After every step of every agent: the step's result, with its reuse report (`result.report`). */
    'agent/step'(agent: Agent, result: StepResult<WireFormat>): void
  }
}

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

/** Options of one step. */
export interface StepOptions<F extends WireFormat = 'openai-chat'> {
  /** Aborts the assembly; the step then rejects with an `AbortError` and records nothing. */
  signal?: AbortSignal
  /**
   * How long the assembly may take, in milliseconds (default: the `agents` service's `stepTimeout`,
   * 60 000; 0: no bound). A step that runs out rejects with `AGENT_STEP_TIMEOUT`, naming the plugins of
   * the assemble listeners that could be holding it, and records nothing.
   */
  timeout?: number
  /**
   * The wire format of the request (default `openai-chat`): `openai-responses` (with the agent's id as
   * `prompt_cache_key`), `anthropic` (breakpoints planned) or `gemini`. The record is the same whatever
   * the format, so one conversation can be sent to several providers.
   */
  format?: F
  /**
   * `openai-responses`: the `prompt_cache_key` (default: the agent's id). Agent ids are unique among live
   * agents only, so a harness that runs many conversations under one id passes its conversation id here.
   */
  conversationId?: string
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
   * The provider format of what is given: a whole reply of that format (a chat completion, a Response,
   * a Message, a GenerateContentResponse; `deepseek` and `openrouter` name chat completions) is read by
   * the format's reader (`readReply`), its usage with it; for a message, the shape of `usage`.
   */
  format?: UsageFormat
}

/** Everything one step produced, for callers that want more than the request. */
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
  /** The entries this step appended to the record. */
  added: readonly ConversationEntry[]
  /**
   * How much of this request repeats the agent's previous request of the same format, what the
   * provider should serve from cache, and why the prefix broke if it did (R-CACHE-2). `record(reply,
   * { usage })` adds the reported cached tokens (and the likely reason when they differ).
   */
  report: CacheReport
  /** The request's size against the agent's model profile, and the compaction advice (`docs/sessions.md`). */
  budget: ContextBudget
}

/**
 * The facts that describe an agent: one shape for `agents.create()`, the `Agent` itself and a
 * deployment's `agents:` rows, which differ only in how they name the parent (`P`).
 */
export interface AgentOptions<P = Agent | string> {
  /** Unique among live agents. */
  id: string
  /** The model name sent in requests and offered as `{{model}}`. */
  model: string
  /** Offered as `{{provider}}`. */
  provider?: string
  /** Offered as `{{cwd}}`. */
  cwd?: string
  /** A preset id: the preset's standing scope becomes this agent's parent scope. */
  preset?: string
  /** The parent agent: a sub-agent's scope has the parent agent's scope as parent. */
  parent?: P
  /** How a changed system prompt enters the requests (default: the `agents` service's `promptChange`). */
  promptChange?: PromptChangePolicy
  /** Overrides of the model's profile (window, input cap, output reserve) over the bundled table's row. */
  profile?: ModelProfileOverride
}

/** The fixed facts of an agent as the service builds it: the parent resolved, the policy and the step bound decided. */
export type AgentInit = AgentOptions<Agent> & { promptChange: PromptChangePolicy; stepTimeout?: number }

/** How long one step's assembly may take by default, in milliseconds (the `agents` service's `stepTimeout`). */
export const DEFAULT_STEP_TIMEOUT = 60_000

/**
 * One agent: a scope of its own (its `ctx`), an append-only conversation, and `step()` which assembles
 * for the scope and returns the next request. Created by `ctx.agents.create()`.
 */
export class Agent {
  /** Unique among live agents. */
  readonly id: string
  /** The model name sent in requests and offered as `{{model}}`. */
  readonly model: string
  /** Offered as `{{provider}}`; absent when not given (then `{{provider}}` has no value). */
  readonly provider?: string
  /** Offered as `{{cwd}}`; absent when not given (then `{{cwd}}` has no value). */
  readonly cwd?: string
  /** The preset id whose standing scope is this agent's parent scope, if any. */
  readonly preset?: string
  /** The parent agent of a sub-agent, if any. */
  readonly parent?: Agent
  /** How a changed system prompt enters the requests: `append` (default) or `replace`. */
  readonly promptChange: PromptChangePolicy
  /** How long one step's assembly may take by default, in milliseconds (0: no bound). */
  readonly stepTimeout: number
  private readonly record_: ConversationEntry[] = []
  /** One lowering per wire format, extended step by step. */
  private readonly sessions = new Map<WireFormat, WireSession<WireFormat>>()
  /** The latest system-prompt and runtime-context entries, found by reading the record forward once. */
  private readonly latest_ = { read: 0, system: undefined as ConversationEntry | undefined, snapshot: undefined as ConversationEntry | undefined }
  private disposed_ = false
  /** The number of replies recorded (Gemini's ids for calls without one count them). */
  private replies = 0
  private readonly budget_: BudgetTracker
  private scope!: ScopeHandle
  private prompt!: SystemPrompt
  private log!: DebugLog
  private readonly reuse = new ReuseTracker(
    () => (this.scope && !this.disposed_ ? this.scope.ctx : undefined),
    () => (this.disposed_ ? undefined : (this.scope.ctx.get('tools') as ToolRegistry | undefined)?.view(this).origin),
  )

  /** @internal Built by the `agents` service. */
  constructor(init: AgentInit) {
    this.id = init.id
    this.model = init.model
    if (init.provider !== undefined) this.provider = init.provider
    if (init.cwd !== undefined) this.cwd = init.cwd
    if (init.preset !== undefined) this.preset = init.preset
    if (init.parent !== undefined) this.parent = init.parent
    this.promptChange = init.promptChange
    this.stepTimeout = init.stepTimeout ?? DEFAULT_STEP_TIMEOUT
    this.budget_ = BudgetTracker.of(init.model, init.profile)
  }

  /** The model profile the agent's requests are measured against: the table's row (or the default) with the deployment's overrides. */
  get profile(): ModelProfile {
    return this.budget_.profile
  }

  /** @internal Attaches the agent's scope once it exists. */
  attach(scope: ScopeHandle, prompt: SystemPrompt, log: DebugLog): void {
    this.scope = scope
    this.prompt = prompt
    this.log = log
  }

  /** @internal Marks the agent gone (its scope was disposed). */
  markDisposed(): void {
    this.disposed_ = true
  }

  /** @internal How many ledger lines `agents.restore()` restored this agent from (a `LedgerWriter` then needs `stored`). */
  restoredLines?: number

  /** @internal Appends a restored system-prompt, user or runtime-context entry (`agents.restore()`; replies and tool results go through `record()`). */
  restoreEntry(item: ConversationEntry): void {
    this.record_.push(item)
  }

  /** The agent's scoped context: what is registered through it is agent-local and dies with the agent. */
  get ctx(): Context {
    return this.scope.ctx
  }

  /** The scope key of the agent (the agent itself). */
  get key(): ScopeKey {
    return this
  }

  /** Whether the agent has been disposed. */
  get disposed(): boolean {
    return this.disposed_
  }

  /** The append-only conversation record. */
  get conversation(): readonly ConversationEntry[] {
    return this.record_
  }

  /** The messages the next request would carry, without assembling (for inspection). */
  messages(): ChatRequestMessage[] {
    return buildMessages(this.record_, this.promptChange)
  }

  /**
   * Records `input` (if given), assembles for the agent's scope, records a changed system prompt and a
   * changed runtime-context snapshot, and resolves to the request. A failure records nothing.
   */
  async step<F extends WireFormat = 'openai-chat'>(input?: string | readonly ContentPart[], options: StepOptions<F> = {}): Promise<RequestBodies[F]> {
    return (await this.stepDetailed(input, options)).request
  }

  /** `step()`, resolving to the request together with the assembly and the rendered texts. */
  async stepDetailed<F extends WireFormat = 'openai-chat'>(input?: string | readonly ContentPart[], options: StepOptions<F> = {}): Promise<StepResult<F>> {
    if (this.disposed_) throw agentDisposed(this.id)
    const userInput = this.userInput(input)
    const format = (options.format ?? 'openai-chat') as F
    wireFormat(format) // throws WIRE_UNKNOWN_FORMAT for a format not registered
    if (options.cacheRules !== undefined && !isProvider(options.cacheRules)) throw unknownCacheRules(this.id, options.cacheRules, providerNames())
    const provider = cacheProviderFor(format, options.cacheRules, this.provider)
    const assembly = await this.bounded(options, (signal) => this.prompt.assemble({ scope: this, agent: this, signal }))
    const rendered = renderAssembly(assembly)
    // Loaded before anything is recorded: from here to the end the step runs without a pause.
    const counter = await this.reuse.counter(provider)
    options.signal?.throwIfAborted()
    if (this.disposed_) throw agentDisposed(this.id)
    if (this.log.enabled()) {
      for (const section of rendered.sections) this.log.write(`section=${section.name} bytes=${Buffer.byteLength(section.text, 'utf8')}`)
      this.log.write(`total sections=${rendered.sections.length} bytes=${Buffer.byteLength(rendered.system, 'utf8')}`)
    }
    const { system, snapshot } = rendered
    const added = stepEntries(this.record_, system, userInput, snapshot, this.latest())
    // The step appends, lowers only what is new (the session keeps the rest), and takes it all back if
    // the lowering fails: a failure records nothing.
    const before = this.record_.length
    this.record_.push(...added)
    let build: SessionBuild<F>
    let report: CacheReport
    try {
      build = this.session(format).build({
        record: this.record_, tools: assembly.tools, model: this.model, promptChange: this.promptChange, conversationId: options.conversationId ?? this.id,
        ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
        ...(options.breakpoints === undefined ? {} : { breakpoints: options.breakpoints }),
      })
      report = this.reuse.measure({ format, provider, build, rendered, assembly, now: Date.now() }, counter)
    } catch (error) {
      this.record_.length = before
      throw error
    }
    const budget = this.budget_.measure(report.requestTokens, report.tokenizer)
    const result: StepResult<F> = { get request() { return build.request }, get body() { return build.body }, assembly, rendered, system, snapshot, added, report, budget }
    // The step is whole: its listeners cannot undo it or make it reject (their failures are logged).
    emitStep(this.scope.ctx, this, result as StepResult<WireFormat>, (error) => this.log.warn(error))
    return result
  }

  /**
   * Runs `assemble` with a signal that aborts on the caller's signal or when the step's bound runs out
   * (a timer that keeps the process alive, so a listener that never settles ends the step, not the program).
   */
  private async bounded<T>(options: StepOptions<WireFormat>, assemble: (signal: AbortSignal | undefined) => Promise<T>): Promise<T> {
    const ms = options.timeout ?? this.stepTimeout
    if (typeof ms !== 'number' || !(ms >= 0)) throw invalidStepTimeout(this.id, ms)
    if (ms === 0 || ms === Infinity) return assemble(options.signal)
    const controller = new AbortController()
    // The assembly runs on the caller's signal when there is one (so the caller's own bound can ask
    // `waitingListener` about it too); this bound then rejects the step without waiting for it.
    const signal = options.signal ?? controller.signal
    // The listener the assembly waits on when the time runs out, else every one it could be.
    const timer = setTimeout(() => {
      const holder = waitingListener(signal)
      controller.abort(stepTimedOut(this.id, ms, holder === undefined ? this.assembleListeners() : [holder]))
    }, ms)
    try {
      const work = assemble(signal)
      return await (options.signal ? abortable(work, controller.signal) : work)
    } finally {
      clearTimeout(timer)
    }
  }

  /** The plugins of the assemble listeners this agent's assemblies run (the candidates for a step that hangs). */
  private assembleListeners(): string[] {
    try {
      return [...new Set(listenersFor(this.scope.ctx, 'system-prompt/assemble', this).map((listener) => listener.owner))]
    } catch {
      return []
    }
  }

  private session<F extends WireFormat>(format: F): WireSession<F> {
    let session = this.sessions.get(format)
    if (!session) this.sessions.set(format, session = new WireSession(format))
    return session as WireSession<F>
  }

  /** The latest system-prompt and runtime-context entries of the record (read forward from where it last stopped). */
  private latest(): { system?: ConversationEntry; snapshot?: ConversationEntry } {
    const latest = this.latest_
    for (; latest.read < this.record_.length; latest.read++) {
      const item = this.record_[latest.read]
      if (item.source === 'system-prompt') latest.system = item
      else if (item.source === 'runtime-context') latest.snapshot = item
    }
    return latest
  }

  /**
   * Appends the model's reply or a tool result to the record; `usage` is kept with the reply. Given a
   * whole provider reply and its `format` (`record(message, { format: 'anthropic' })`), the format's
   * reader turns it into the record's reply first (a Gemini call without an id gets `gemini-<n>-<i>`,
   * `n` the replies recorded before it); a reply not of the format's shape throws its `WIRE_*` code.
   * The message is then checked and copied by `entry-shape.ts` (the ledger reads through the same rules).
   */
  record(message: RecordedMessage | ProviderReply, options: RecordOptions = {}): void {
    if (this.disposed_) throw agentDisposed(this.id)
    if (typeof message !== 'object' || message === null) throw invalidRecord(this.id, 'expected a message object')
    let item: ConversationEntry
    let usage: Usage | undefined
    const replyFormat = options.format === undefined ? undefined : replyFormatOf(options.format, message)
    let given = message as RecordedMessage
    if (replyFormat !== undefined) {
      const read = readReply(replyFormat, message, { turn: this.replies, usage: options.format })
      given = read.message
      if (options.usage === undefined && read.usage !== undefined) options = { usage: read.usage }
    }
    try {
      usage = this.usageOf(given, options)
      if (given.role === 'assistant') item = entry(replyShape(given), 'assistant', usage)
      else if (given.role === 'tool') item = entry(toolResultShape(given), 'tool')
      else fail(`role must be "assistant" or "tool" (user input goes through step(input)), received ${JSON.stringify((given as { role?: unknown }).role)}`)
    } catch (error) {
      if (error instanceof EntryShapeError) throw invalidRecord(this.id, error.problem)
      if ((error as { code?: unknown })?.code !== undefined) throw error
      throw invalidRecord(this.id, `the message cannot be read: ${PromptErrors.messageOf(error)}`)
    }
    this.record_.push(item)
    if (item.source === 'assistant') this.replies++
    if (usage) this.reuse.reconcile(usage, Date.now())
  }

  /** `step()`'s input as the record keeps it: a string, or content parts checked, copied and frozen with their text as `content`. */
  private userInput(input: unknown): string | UserInput | undefined {
    if (input === undefined || typeof input === 'string') return input
    if (!Array.isArray(input)) throw invalidInput(this.id)
    const content = input.filter((part) => part?.type === 'text' && typeof part.text === 'string').map((part) => part.text as string).join('')
    try {
      checkContentParts(input, content)
      return { content, parts: deepFreeze(structuredClone(input), 'parts') as ContentPart[] }
    } catch (error) {
      throw invalidInput(this.id, PromptErrors.messageOf(error))
    }
  }

  private usageOf(message: RecordedMessage, options: RecordOptions): Usage | undefined {
    if (options.usage === undefined) return undefined
    if (message.role !== 'assistant') fail('usage belongs to an assistant reply, not a tool result')
    // A provider's figures are normalised first; their sum can still overflow, so the result is checked too.
    if (options.format !== undefined) return usageShape(normalizeUsage(options.format, options.usage), `usage (as ${options.format} reported it)`)
    return usageShape(options.usage)
  }

  /** Disposes the agent's scope and everything registered through it. Idempotent. */
  dispose(): Promise<void> {
    this.disposed_ = true
    return this.scope.dispose()
  }
}
