import type { Context } from 'cordis'
import { listenersFor, type ScopeHandle, type ScopeKey } from 'dsh-scope'
import { renderAssembly, waitingListener, type SystemPrompt } from 'dsh-system-prompt'
import { abortable, deepFreeze, PromptErrors } from 'dsh-system-prompt/internal'
import {
  buildMessages, checkContentParts, WireSession, type SessionBuild, isProvider, providerNames, wireFormat,
  type ChatRequestMessage, type ContentPart, type RequestBodies,
  type WireFormat, type ModelProfile, type ModelProfileOverride, type Usage,
} from 'dsh-wire'
import type { ToolRegistry } from 'dsh-tools'
import type { DebugLog } from './debug-log.js'
import { BudgetTracker } from './budget.js'
import { notify } from './notify.js'
import type { ProviderReply, RecordedMessage, RecordOptions, StepOptions, StepResult } from './step-types.js'
import { makeFork, type Fork, type ForkOptions, type LatestStep } from './fork.js'
import { recordedEntry } from './recorded-entry.js'
import { optionsView, sessionView, type PublishedAgentOptions, type PublishedSession } from './published-views.js'
import { cacheProviderFor, ReuseTracker } from './cache-report.js'
import { DeferredMeasures, type StepMeasures } from './deferred-measures.js'
import { agentDisposed, invalidInput, invalidStepTimeout, stepListenerFailed, stepTimedOut, unknownCacheRules, usageListenerFailed } from './errors.js'
import {
  stepEntries, type UserInput, type ConversationEntry, type PromptChangePolicy,
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
    /** After `agent.record()` kept a reply's usage (normalised), once the latest step's report holds it. */
    'agent/usage'(agent: Agent, usage: Usage): void
  }
}

export type { ProviderReply, RecordedMessage, RecordOptions, StepOptions, StepResult } from './step-types.js'

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
  /** Per format, what its latest request was built with (a fork repeats it), and the latest format. */
  private readonly latestSteps = new Map<WireFormat, LatestStep>()
  private latestFormat: WireFormat | undefined
  private scope!: ScopeHandle
  private prompt!: SystemPrompt
  private log!: DebugLog
  // Layer names are read from the agent's scope when a report is measured, which may be after the agent
  // is disposed (reports are measured on first read: deferred-measures.ts); the tools are fixed at the step.
  private readonly reuse = new ReuseTracker(
    () => this.scope?.ctx,
    () => (this.disposed_ ? undefined : (this.scope.ctx.get('tools') as ToolRegistry | undefined)?.view(this).origin),
  )
  private readonly measures: DeferredMeasures

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
    this.measures = new DeferredMeasures(this.reuse, this.budget_)
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

  /** The published `agent.session` shape: `{ id, header: { cwd, model, provider } }`, read-only getters over this agent's fields. */
  get session(): PublishedSession {
    return sessionView(this)
  }

  /** The published `agent.options` shape: `{ id, model, provider, cwd, preset }`, read-only getters over this agent's fields. */
  get options(): PublishedAgentOptions {
    return optionsView(this)
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
    // The counter is handed out at once; its tokenizer loads on the first count read (R-CACHE-10).
    const counter = await this.measures.counter(provider)
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
    let measured: () => StepMeasures
    try {
      build = this.wireSession(format).build({
        record: this.record_, tools: assembly.tools, model: this.model, promptChange: this.promptChange, conversationId: options.conversationId ?? this.id,
        ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
        ...(options.breakpoints === undefined ? {} : { breakpoints: options.breakpoints }),
      })
      measured = this.measures.step({ format, provider, build, rendered, assembly, now: Date.now(), tools: this.reuse.toolsNow() }, counter)
    } catch (error) {
      this.record_.length = before
      throw error
    }
    const { conversationId, maxTokens, breakpoints } = options
    this.latestSteps.set(format, { provider, input: { conversationId: conversationId ?? this.id, ...(maxTokens === undefined ? {} : { maxTokens }), ...(breakpoints === undefined ? {} : { breakpoints }) } })
    this.latestFormat = format
    // The report and budget are measured on first read, so a harness that reads no count loads no tokenizer.
    const result: StepResult<F> = {
      get request() { return build.request }, get body() { return build.body }, assembly, rendered, system, snapshot, added,
      get report() { return measured().report }, get budget() { return measured().budget },
    }
    // The step is whole: its listeners cannot undo it or make it reject (their failures are logged).
    this.notifyStep(result as StepResult<WireFormat>)
    return result
  }

  /**
   * A side request (`compact`, `title`, `aside`, ...): the agent's latest request of the format, byte for
   * byte, plus one trailing user message (`instruction`), its tools declared and inert. The agent's
   * record, reports and ledger stay as they were; the fork's report and `agent/step` event carry
   * `side: { kind }`, and `fork.parity()` names where it stops repeating the latest request (`fork.ts`).
   */
  async fork<F extends WireFormat = WireFormat>(options: ForkOptions<F>): Promise<Fork<F>> {
    if (this.disposed_) throw agentDisposed(this.id)
    const format = (options?.format ?? this.latestFormat ?? 'openai-chat') as F
    wireFormat(format)
    const measures = this.measures
    return makeFork({
      agent: this, format, latest: this.latestSteps.get(format), session: this.wireSession(format), get reuse() { return measures.current() }, budget: this.budget_,
      record: () => this.record_, newest: () => this.latest(), userInput: (input) => this.userInput(input), replies: () => this.replies,
      assemble: (opts) => this.bounded(opts, (signal) => this.prompt.assemble({ scope: this, agent: this, signal })),
      alive: () => { if (this.disposed_) throw agentDisposed(this.id) },
      emit: (result) => this.notifyStep(result as StepResult<WireFormat>),
    }, options, (provider) => measures.counter(provider))
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

  private wireSession<F extends WireFormat>(format: F): WireSession<F> {
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
    const { item, usage } = recordedEntry(this.id, message, options, this.replies)
    this.record_.push(item)
    if (item.source === 'assistant') this.replies++
    if (!usage) return
    this.measures.reconcile(usage, Date.now())
    // Cordis's emit throws a listener's failure at the emitter: the reply is recorded, so it is only logged.
    notify(this.scope.ctx, 'agent/usage', [this, usage], { failure: (plugin, error) => usageListenerFailed(this.id, plugin, error), report: (error) => this.log.warn(error) })
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

  /** `agent/step` for a whole step: its listeners cannot undo it or make it reject (their failures are logged). */
  private notifyStep(result: StepResult<WireFormat>): void {
    notify(this.scope.ctx, 'agent/step', [this, result], { failure: (plugin, error) => stepListenerFailed(this.id, plugin, error), report: (error) => this.log.warn(error) })
  }

  /** Disposes the agent's scope and everything registered through it. Idempotent. */
  dispose(): Promise<void> {
    this.disposed_ = true
    return this.scope.dispose()
  }
}
