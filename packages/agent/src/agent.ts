import type { Context } from 'cordis'
import { listenersFor, type ScopeHandle, type ScopeKey } from 'dsh-scope'
import { renderAssembly, waitingListener, type SystemPrompt } from 'dsh-system-prompt'
import { abortable, deepFreeze, PromptErrors } from 'dsh-system-prompt/internal'
import {
  buildMessages, checkContentParts, entry, requestHeaders, toolAppendChoice, WireSession, type SessionBuild, isProvider, providerNames, usageShapeFor, wireFormat,
  type ChatRequestMessage, type ContentPart, type RequestBodies, type CacheReport,
  type WireFormat, type ModelProfile, type ModelProfileOverride, type Usage,
} from 'dsh-wire'
import type { ToolRegistry } from 'dsh-tools'
import type { DebugLog } from './debug-log.js'
import { BudgetTracker } from './budget.js'
import { notify } from './notify.js'
import type { ProviderReply, RecordedMessage, RecordOptions, StepOptions, StepResult } from './step-types.js'
import { makeFork, type Fork, type ForkOptions, type LatestStep } from './fork.js'
import { recordedEntry } from './recorded-entry.js'
import type { ChildSeed, ParentHandoff, SubagentStart } from './subagent-start.js'
import type { AgentWireOptions } from './wire-options.js'
import { diagnosticsFields } from './diagnostics-bridge.js'
import { ProviderTruth } from './provider-truth.js'
import { keepEntryRequest, type RequestFacts } from './ledger-request.js'
import { optionsView, sessionView, type PublishedAgentOptions, type PublishedSession } from './published-views.js'
import { cacheProviderFor, ReuseTracker } from './cache-report.js'
import { DEFAULT_TOOL_CHANGE, ToolDeclarations, toolOwners, unavailableCalls, type ToolChangeOption, type ToolChangePolicy, type UnavailableCall, type RestoredDeclaration } from './tool-changes.js'
import { InertGuidance, inertTools } from './inert-guidance.js'
import { EpochLog, type LedgerItem } from './epoch-log.js'
import type { Epoch, EpochMark, ReanchorPolicy } from './epoch.js'
import { compactionSource, planCompaction, type CompactionHost, type CompactionOptions, type CompactionPlan, type CompactionSource, type CompactionSourceOptions } from './compaction.js'
import { entryParts, keepEntryParts, partText, promptParts } from './ledger-parts.js'
import { ledgerToolsRecorded, ledgerToolsSent } from './ledger-tools.js'
import type { ResumeGuard } from './resume-guard.js'
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
  /** How a tool change enters the requests, per kind (default: the `agents` service's `toolChange`; `tool-changes.ts`). */
  toolChange?: ToolChangeOption
  /** Which re-anchor a compaction takes: `cheapest` (default), `stable-opening` or `new-opening` (`docs/sessions.md`). */
  reanchor?: ReanchorPolicy
  /** How the agent's requests use the provider's own mechanisms (`wire-options.ts`): prompt-update overrides, diagnostics, the TTL plan, prices. */
  wire?: AgentWireOptions
}

/** The fixed facts of an agent as the service builds it: the parent resolved, the policy and the step bound decided. */
export type AgentInit = Omit<AgentOptions<Agent>, 'toolChange'> & {
  promptChange: PromptChangePolicy; stepTimeout?: number; toolChange?: ToolChangePolicy; start?: SubagentStart; routingKey?: string; now?: () => number
}

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
  /** How a sub-agent started from its parent (`subagent-start.ts`); absent for an agent without parent. */
  readonly start?: SubagentStart
  /** The default `conversationId` of its requests (`prompt_cache_key`): its id, or for a sub-agent one derived from its parent's. */
  readonly routingKey: string
  /** How long one step's assembly may take by default, in milliseconds (0: no bound). */
  readonly stepTimeout: number
  /** What each request declares as tools, under the agent's tool-change policy (`tool-changes.ts`). */
  private readonly tools_: ToolDeclarations
  /** The sections kept in the system prompt for inert tools until the next epoch (`inert-guidance.ts`). */
  private readonly guidance: InertGuidance
  /** Which re-anchor a compaction takes (`cheapest` unless the agent was created with another). */
  readonly reanchor: ReanchorPolicy
  /** The epochs compactions opened, what they closed, and the sections they took out. */
  private readonly epochs_ = new EpochLog()
  /** The agent's `wire` options (checked), if any. */
  readonly wire?: AgentWireOptions
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
  /** How many record entries the latest request sent (a child started from it begins with them). */
  private sent: number | undefined
  /** The formats whose latest request asked the provider for its cache diagnosis (the diagnostics bridge). */
  private readonly diagnosed = new Set<WireFormat>()
  /** The clock (the `agents` service's `now`, default `Date.now`). */
  private readonly now: () => number
  /** The measured gaps and the TTL plan, the price table's running totals (`provider-truth.ts`). */
  private readonly truth: ProviderTruth
  private scope!: ScopeHandle
  private prompt!: SystemPrompt
  private log!: DebugLog
  /**
   * The scope context's `get`, read once: each read of `ctx.get` goes through Cordis's context proxy,
   * which builds an `Error` (a stack capture) for a mixin, and a step asks for the `tools` service each time.
   */
  private service!: Context['get']
  // Layer names are read from the agent's scope when a report is measured, which may be after the agent
  // is disposed (reports are measured on first read: deferred-measures.ts); the tools are fixed at the step.
  private readonly reuse = new ReuseTracker(
    () => this.scope?.ctx,
    () => this.toolOrigins(),
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
    if (init.start !== undefined) this.start = init.start
    this.routingKey = init.routingKey ?? init.id
    this.stepTimeout = init.stepTimeout ?? DEFAULT_STEP_TIMEOUT
    this.reanchor = init.reanchor ?? 'cheapest'
    if (init.wire !== undefined) this.wire = init.wire
    this.now = init.now ?? (() => Date.now())
    this.truth = new ProviderTruth(this.wire, init.model)
    this.budget_ = BudgetTracker.of(init.model, init.profile)
    this.tools_ = new ToolDeclarations(init.toolChange ?? DEFAULT_TOOL_CHANGE)
    this.guidance = new InertGuidance(this.tools_.policy.removed === 'inert')
    this.measures = new DeferredMeasures(this.reuse, this.budget_)
  }

  /** How a tool change enters the requests, per kind (`removed`, `added`, `edited`, `reordered`). */
  get toolChange(): ToolChangePolicy {
    return this.tools_.policy
  }

  /**
   * The epoch hook: the next request declares the live tools exactly (inert tools and tools announced
   * for the next epoch are settled then). The compaction that opens an epoch calls it.
   */
  openToolEpoch(): void {
    this.tools_.openEpoch()
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
    this.service = scope.ctx.get
  }

  /** @internal Marks the agent gone (its scope was disposed). */
  markDisposed(): void {
    this.disposed_ = true
  }

  /** @internal How many ledger lines `agents.restore()` restored this agent from (a `LedgerWriter` then needs `stored`). */
  restoredLines?: number

  /** @internal Set by `agents.restore()`: compares the first step's prompt with the ledger's (`resume-guard.ts`). */
  resumeGuard?: ResumeGuard

  /** @internal Appends a restored system-prompt, user or runtime-context entry (`agents.restore()`; replies and tool results go through `record()`). */
  restoreEntry(item: ConversationEntry): void {
    this.record_.push(item)
    const request = item.source === 'assistant' ? this.truth.answered() : undefined
    if (request) keepEntryRequest(item, request)
  }

  /** @internal Takes back the facts of the request the next restored reply answers (`agents.restore()`): the TTL plan reads them, the reply's ledger line keeps them. */
  restoreRequest(facts: RequestFacts): void {
    this.truth.restored(facts)
  }

  /** @internal What a child created under this agent reads of it (`subagent-start.ts`). */
  handoff(): ParentHandoff {
    const latest = this.latestFormat === undefined ? undefined : this.latestSteps.get(this.latestFormat)
    return {
      id: this.id, model: this.model, promptChange: this.promptChange, routingKey: latest?.input.conversationId ?? this.routingKey,
      sent: this.sent === undefined ? undefined : this.record_.slice(0, this.sent), sessions: this.sessions, reuse: this.measures.current(),
    }
  }

  /** @internal Begins a new child as its start says (before its first step). */
  seed(seed: ChildSeed): void {
    this.record_.push(...seed.entries)
    // The copied replies count: a Gemini call without an id is named after the replies before it.
    for (const item of seed.entries) if (item.source === 'assistant') this.replies++
    for (const [format, session] of seed.sessions) this.sessions.set(format, session)
    if (seed.measureFrom) this.reuse.inherit(seed.measureFrom)
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
  async step<F extends WireFormat = 'openai-chat', const X extends object = {}>(input?: string | readonly ContentPart[], options: StepOptions<F, X> = {}): Promise<RequestBodies[F] & X> {
    return (await this.stepDetailed(input, options)).request as RequestBodies[F] & X
  }

  /** `step()`, resolving to the request together with the assembly and the rendered texts. */
  async stepDetailed<F extends WireFormat = 'openai-chat', const X extends object = {}>(input?: string | readonly ContentPart[], options: StepOptions<F, X> = {}): Promise<StepResult<F>> {
    if (this.disposed_) throw agentDisposed(this.id)
    const userInput = this.userInput(input)
    const format = (options.format ?? 'openai-chat') as F
    wireFormat(format) // throws WIRE_UNKNOWN_FORMAT for a format not registered
    if (options.cacheRules !== undefined && !isProvider(options.cacheRules)) throw unknownCacheRules(this.id, options.cacheRules, providerNames())
    const provider = cacheProviderFor(format, options.cacheRules, this.provider)
    const assembly = await this.bounded(options, (signal) => this.assembleOwn(signal))
    // The registration behind each tool, read once: the tool plan names owners with it, and the report keeps it.
    const origins = this.toolOrigins()
    // An added tool's way in: the format's append path when it is open for this request (R-TOOL-13), else declared now.
    const module = wireFormat(format)
    const appendPath = (declaredTools: number) => toolAppendChoice(module, {
      model: this.model, enabled: this.wire?.toolAdditions === true, declaredTools, ...(this.wire?.promptUpdates === undefined ? {} : { promptUpdates: this.wire.promptUpdates }),
    })
    const tools = this.tools_.plan(assembly.tools, toolOwners(origins, assembly), appendPath)
    // An inert tool's sections stay as last sent (the tools it declares that the assembly no longer offers).
    const guidance = this.guidance.step(assembly, inertTools(tools.declared, assembly.tools))
    guidance.annotate(tools.changes)
    const rendered = renderAssembly(assembly)
    // The counter is handed out at once; its tokenizer loads on the first count read (R-CACHE-10).
    const counter = await this.measures.counter(provider)
    options.signal?.throwIfAborted()
    if (this.disposed_) throw agentDisposed(this.id)
    if (this.log.enabled()) {
      for (const section of rendered.sections) this.log.write(`section=${section.name} bytes=${Buffer.byteLength(section.text, 'utf8')}`)
      this.log.write(`total sections=${rendered.sections.length} bytes=${Buffer.byteLength(rendered.system, 'utf8')}`)
    }
    const now = this.now()
    const planned = this.truth.breakpoints(format, options.breakpoints)
    // The diagnostics bridge: the provider's comparison field, naming the previous reply of the format.
    const asked = this.wire?.diagnostics ? diagnosticsFields(this.record_, format) : undefined
    const fields = asked === undefined ? options.fields : { ...asked, ...options.fields }
    const request = {
      tools: tools.declared, model: this.model, promptChange: this.promptChange, conversationId: options.conversationId ?? this.routingKey,
      ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
      ...(planned.breakpoints === undefined ? {} : { breakpoints: planned.breakpoints }),
      ...(fields === undefined ? {} : { fields }),
      ...(this.wire?.promptUpdates === undefined ? {} : { promptUpdates: this.wire.promptUpdates }),
    }
    const layerOf = (scope: ScopeKey | undefined) => this.reuse.layerOf(scope)
    // A restored agent's first step compares its prompt with the ledger's (resume-guard.ts); under `authoritative` it may send the stored one.
    const resume = this.resumeGuard?.check({
      rendered, assembly, record: this.record_, latest: this.latest(), format, provider, counter, layerOf, build: (record) => new WireSession(format).build({ record, ...request }),
    })
    const system = resume?.system ?? rendered.system
    const { snapshot } = rendered
    const added = stepEntries(this.record_, system, userInput, snapshot, this.latest())
    // The note goes last: a format's append path sends its additions right after it (R-TOOL-13).
    if (tools.note !== undefined) added.push(entry(tools.additions.length ? { role: 'user', content: tools.note, toolAdditions: [...tools.additions] } : { role: 'user', content: tools.note }, 'user'))
    // A new version keeps its parts (the ledger writes them; ledger-parts.ts).
    if (added[0]?.source === 'system-prompt' && system === rendered.system) keepEntryParts(added[0], promptParts(rendered, assembly, layerOf))
    // The step appends, lowers only what is new (the session keeps the rest), and takes it all back if
    // the lowering fails: a failure records nothing.
    const before = this.record_.length
    const promptUpdated = this.promptChange === 'append' && before > 0 && added.some((item) => item.source === 'system-prompt' && item.content)
    this.record_.push(...added)
    let build: SessionBuild<F>
    let measured: () => StepMeasures
    try {
      build = this.wireSession(format).build({ record: this.record_, ...request })
      // Measured on first read (deferred-measures.ts), in step order; what needs the report runs with it.
      measured = this.measures.step({ format, provider, build, rendered, assembly, now, tools: origins }, counter, (report) => {
        this.truth.measured(format, build as SessionBuild<WireFormat>, report, planned.plan, now)
        if (promptUpdated) report.promptUpdate = build.promptUpdate
        tools.report(report)
      })
      tools.commit()
      guidance.commit(rendered.sections, assembly)
      // The provider options (TTL plan, prices, diagnostics) carry figures from one request to the next: measured now.
      if (this.wire !== undefined) measured()
    } catch (error) {
      this.record_.length = before
      throw error
    }
    // The ledger records the declared tools where they change (ledger-tools.ts).
    ledgerToolsSent(this, tools.declared, added)
    const { conversationId, maxTokens, breakpoints } = options
    if (asked === undefined) this.diagnosed.delete(format)
    else this.diagnosed.add(format)
    this.latestSteps.set(format, {
      provider, tools: tools.declared,
      input: {
        conversationId: conversationId ?? this.routingKey, ...(maxTokens === undefined ? {} : { maxTokens }), ...(breakpoints === undefined ? {} : { breakpoints }),
        ...(fields === undefined ? {} : { fields }), ...(this.wire?.promptUpdates === undefined ? {} : { promptUpdates: this.wire.promptUpdates }),
      },
    })
    this.latestFormat = format
    this.sent = this.record_.length
    if (resume) this.resumeGuard!.commit(resume)
    // The report and budget are measured on first read, so a harness that reads no count loads no tokenizer.
    const result: StepResult<F> = {
      get request() { return build.request }, get body() { return build.body }, get headers() { return requestHeaders(format, build.request) }, assembly, rendered, system, snapshot, added,
      get report() { return measured().report }, get budget() { return measured().budget }, ...(resume?.report ? { resume: resume.report } : {}),
    }
    const epoch = this.epochs_.stepped()
    if (epoch) result.epoch = epoch
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
      assemble: async (opts) => this.guidance.show(await this.bounded(opts, (signal) => this.assembleOwn(signal))),
      alive: () => { if (this.disposed_) throw agentDisposed(this.id) },
      emit: (result) => this.notifyStep(result as StepResult<WireFormat>), now: this.now,
      system: (rendered) => this.resumeGuard?.pinned(rendered) ?? rendered,
    }, options, (provider) => measures.counter(provider))
  }

  /** The epochs this agent's compactions opened, oldest first (a restored agent's from its ledger). */
  get epochs(): readonly Epoch[] {
    return this.epochs_.epochs
  }

  /**
   * What to hand a summarizer before a compaction that keeps `keep`: the record before the kept tail as
   * text (no system-prompt version, no snapshot: a `verbatim` section is never in it), the text of the
   * `summary` sections, and an instruction for a `compact` fork (`compaction.ts`).
   */
  async compactionSource(options: CompactionSourceOptions = {}): Promise<CompactionSource> {
    if (this.disposed_) throw agentDisposed(this.id)
    return compactionSource(this.compactionHost(), options)
  }

  /**
   * Prices both re-anchors of a compaction with `summary` that keeps `keep` (R-EPOCH-2) and returns the
   * plan: `plan.offered`, `plan.choice` (the agent's `reanchor` policy), `plan.apply(kind?)`. Nothing
   * changes until `apply()`.
   */
  async planCompaction(options: CompactionOptions): Promise<CompactionPlan> {
    if (this.disposed_) throw agentDisposed(this.id)
    return planCompaction(this.compactionHost(), options)
  }

  /** `planCompaction(options)` applied with the policy's choice: opens the new epoch and returns it. */
  async compact(options: CompactionOptions): Promise<Epoch> {
    return (await this.planCompaction(options)).apply()
  }

  /** What a compaction borrows from the agent. */
  private compactionHost(): CompactionHost {
    return {
      agent: this, log: this.epochs_, reuse: this.measures.current(),
      record: () => this.record_,
      assemble: (opts) => this.bounded(opts, (signal) => this.assembleOwn(signal)),
      survival: () => new Map(this.prompt.inspect(this).sections.map((section) => [section.name, section.compaction])),
      latest: (format) => {
        const chosen = format ?? this.latestFormat ?? 'openai-chat'
        wireFormat(chosen)
        const step = this.latestSteps.get(chosen)
        return { format: chosen, provider: step?.provider ?? cacheProviderFor(chosen, undefined, this.provider), input: step?.input ?? { conversationId: this.id } }
      },
      counter: (provider) => this.reuse.counter(provider),
      session: (format) => this.wireSession(format),
      alive: () => { if (this.disposed_) throw agentDisposed(this.id) },
      open: (epoch, baseline) => this.openEpoch(epoch, baseline, true),
    }
  }

  /** Replaces the record with a new epoch's; every format's lowering starts again from it (keeping its head's memo) (the reuse tracker keeps the latest request to measure the next one against). */
  private openEpoch(epoch: Epoch, baseline: readonly ConversationEntry[], live: boolean): void {
    const closed = this.record_.slice()
    this.record_.length = 0
    for (const item of baseline) this.record_.push(item)
    this.epochs_.open(epoch, closed, live)
    Object.assign(this.latest_, { read: 0, system: undefined, snapshot: undefined })
    for (const session of this.sessions.values()) session.restart()
    // A new epoch settles the tool declarations (inert tools leave, announced ones are declared), and a
    // child can start from the parent only once a request of the new epoch has been sent.
    this.tools_.openEpoch()
    this.guidance.openEpoch()
    this.sent = undefined
  }

  /** @internal Restores an epoch's mark from a ledger (`agents.restore()`); the baseline entries follow through `restoreEntry`. */
  restoreEpoch(mark: EpochMark): void {
    this.openEpoch({ ...mark, offered: [mark.predicted], horizon: 0 }, [], false)
  }

  /** @internal What the restored ledger's last request declared (`agents.restore()`, R-LEDGER-9): the first step plans its tools from it. */
  restoreTools(state: RestoredDeclaration): void {
    this.tools_.restore(state)
  }

  /** @internal Takes the sections shown with a tool from the restored record's latest prompt version: kept while their tool is not offered (`agents.restore()`, after the entries). */
  restoreKept(): void {
    const system = this.latest().system
    const parts = system && typeof system.content === 'string' ? entryParts(system) : undefined
    if (parts?.some((part) => part.tool !== undefined)) this.guidance.restore(parts.map((part) => ({ ...part, text: partText(system!.content as string, part) })))
  }

  /** @internal The ledger's items after the header: the closed epochs' entries and marks, then the record. */
  ledgerItems(from = 0): LedgerItem[] {
    return this.epochs_.items(this.record_, from)
  }

  /** @internal How many ledger lines follow the header. */
  get ledgerLength(): number {
    return this.epochs_.length(this.record_.length)
  }

  /** The registration behind each tool the agent sees, as it stands now (`undefined` once it is disposed). */
  private toolOrigins() {
    return this.disposed_ ? undefined : (this.service('tools') as ToolRegistry | undefined)?.view(this).origin
  }

  /** An assembly for the agent's scope, without the sections a compaction took out while their text is unchanged. */
  private async assembleOwn(signal: AbortSignal | undefined) {
    return this.epochs_.hide(await this.prompt.assemble({ scope: this, agent: this, signal }))
  }

  /**
   * Runs `assemble` with a signal that aborts on the caller's signal or when the step's bound runs out
   * (a timer that keeps the process alive, so a listener that never settles ends the step, not the program).
   */
  private async bounded<T>(options: Pick<StepOptions<WireFormat>, 'signal' | 'timeout'>, assemble: (signal: AbortSignal | undefined) => Promise<T>): Promise<T> {
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
   * Returns the reply's calls to tools the agent declares but cannot run now (`tool-changes.ts`), each
   * with its `AGENT_TOOL_UNAVAILABLE` error and the tool result to record for it; usually none.
   */
  record(message: RecordedMessage | ProviderReply, options: RecordOptions = {}): UnavailableCall[] {
    if (this.disposed_) throw agentDisposed(this.id)
    const latest = this.latestFormat
    const { item, usage } = recordedEntry(this.id, message, options, this.replies, {
      shape: usageShapeFor(latest ?? 'openai-chat', this.provider), diagnosed: latest !== undefined && this.diagnosed.has(latest),
    })
    this.record_.push(item)
    ledgerToolsRecorded(this, item)
    if (item.source === 'assistant') {
      this.replies++
      // The TTL plan's measure of the request this reply answers goes in the reply's ledger line.
      const request = this.truth.answered()
      if (request) keepEntryRequest(item, request)
    }
    const unavailable = unavailableCalls(this.id, item, this.tools_.unavailable)
    // Each in step order, after the measurements still waiting (deferred-measures.ts).
    if (item.reply?.miss !== undefined && this.wire?.diagnostics) {
      const miss = item.reply.miss
      this.measures.after(() => this.reuse.joinProviderMiss(miss))
    }
    if (!usage) return unavailable
    this.epochs_.replied(usage, this.model)
    this.measures.reconcile(usage, this.now())
    this.measures.after(() => this.truth.priced(usage))
    // Cordis's emit throws a listener's failure at the emitter: the reply is recorded, so it is only logged.
    notify(this.scope.ctx, 'agent/usage', [this, usage], { failure: (plugin, error) => usageListenerFailed(this.id, plugin, error), report: (error) => this.log.warn(error) })
    return unavailable
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
