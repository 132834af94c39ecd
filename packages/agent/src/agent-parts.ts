/**
 * What an agent is made of besides its public facts: the conversation record, one lowering per wire
 * format, what its latest requests were built with, and the collaborators that plan, measure and keep
 * its requests (tool declarations, inert guidance, epochs, reuse measures, provider truth, budget);
 * and what changes them wholesale: a new epoch, a restored ledger's entries, a child's seed.
 * `Agent` owns one; the modules that run its steps, replies, forks and compactions take it explicitly
 * (`step-prepare.ts`, `agent-step.ts`, `agent-reply.ts`, `agent-hosts.ts`). None of them imports
 * `agent.ts`, not even for a type: they read the agent's facts (`AgentFacts`), and what needs the
 * `Agent` itself (an assembly for it, its events) goes through the hooks it hands its parts once.
 * @module
 */
import type { Context } from 'cordis'
import type { ScopeHandle } from 'dsh-scope'
import type { PromptAssembly, SystemPrompt } from 'dsh-system-prompt'
import { WireSession, type ModelProfileOverride, type Usage, type WireFormat } from 'dsh-wire'
import type { ToolRegistry } from 'dsh-tools'
import { BudgetTracker } from './budget.js'
import { ReuseTracker } from './cache-report.js'
import type { ConversationEntry, PromptChangePolicy } from './conversation.js'
import type { DebugLog } from './debug-log.js'
import { DeferredMeasures } from './deferred-measures.js'
import { EpochLog } from './epoch-log.js'
import type { LatestStep } from './fork.js'
import { InertGuidance } from './inert-guidance.js'
import { entryParts, partText } from './ledger-parts.js'
import { keepEntryRequest } from './ledger-request.js'
import { ProviderTruth } from './provider-truth.js'
import type { ResumeGuard } from './resume-guard.js'
import type { StepResult } from './step-types.js'
import type { ChildSeed, ParentHandoff } from './subagent-start.js'
import { DEFAULT_TOOL_CHANGE, ToolDeclarations, type ToolChangePolicy } from './tool-changes.js'
import type { AgentWireOptions } from './wire-options.js'
import type { Epoch, ReanchorPolicy } from './epoch.js'
import { untraced } from './untraced.js'

/** The agent's facts its parts read (the `Agent` has them all). */
export interface AgentFacts {
  readonly id: string
  readonly model: string
  readonly provider?: string
  readonly promptChange: PromptChangePolicy
  readonly routingKey: string
  readonly stepTimeout: number
  readonly reanchor: ReanchorPolicy
  readonly wire?: AgentWireOptions
  readonly resumeGuard?: ResumeGuard
}

/** What only the `Agent` itself does for its parts (made once, with the agent). */
export interface AgentHooks {
  /** An assembly for the agent's scope, the agent as `AssembleContext.agent`. */
  assemble(signal: AbortSignal | undefined): Promise<PromptAssembly>
  /** `agent/step` for a whole step or fork: its listeners' failures are logged. */
  step(result: StepResult<WireFormat>): void
  /** `agent/usage` for a recorded reply's usage: its listeners' failures are logged. */
  usage(usage: Usage): void
}

/** The fixed facts the parts are made from (the `Agent`'s `AgentInit`). */
export interface PartsInit {
  readonly model: string
  readonly profile?: ModelProfileOverride
  readonly toolChange?: ToolChangePolicy
  readonly now?: () => number
}

/** An agent's record, lowerings and collaborators (see the module comment). */
export class AgentParts {
  /** The append-only conversation record. */
  readonly record: ConversationEntry[] = []
  /** One lowering per wire format, extended step by step. */
  readonly sessions = new Map<WireFormat, WireSession<WireFormat>>()
  /** The latest system-prompt and runtime-context entries, found by reading the record forward once. */
  private readonly latest_ = { read: 0, system: undefined as ConversationEntry | undefined, snapshot: undefined as ConversationEntry | undefined }
  disposed = false
  /** The number of replies recorded (Gemini's ids for calls without one count them). */
  replies = 0
  readonly budget: BudgetTracker
  /** Per format, what its latest request was built with (a fork repeats it), and the latest format. */
  readonly latestSteps = new Map<WireFormat, LatestStep>()
  latestFormat: WireFormat | undefined
  /** How many record entries the latest request sent (a child started from it begins with them). */
  sent: number | undefined
  /** A `live` child's parent tracker, read at its first step (`inheritLate`). */
  private measureLater: (() => ReuseTracker | undefined) | undefined
  /** The formats whose latest request asked the provider for its cache diagnosis (the diagnostics bridge). */
  readonly diagnosed = new Set<WireFormat>()
  /** The clock (the `agents` service's `now`, default `Date.now`). */
  readonly now: () => number
  /** The measured gaps and the TTL plan, the price table's running totals (`provider-truth.ts`). */
  readonly truth: ProviderTruth
  /** What each request declares as tools, under the agent's tool-change policy (`tool-changes.ts`). */
  readonly tools: ToolDeclarations
  /** The sections kept in the system prompt for inert tools until the next epoch (`inert-guidance.ts`). */
  readonly guidance: InertGuidance
  /** The epochs compactions opened, what they closed, and the sections they took out. */
  readonly epochs = new EpochLog()
  scope!: ScopeHandle
  prompt!: SystemPrompt
  log!: DebugLog
  /**
   * The scope context's `get`, read once: each read of `ctx.get` goes through Cordis's context proxy,
   * which builds an `Error` (a stack capture) for a mixin. A step calls it for the `tools` service only
   * after a service change (`toolsService` below).
   */
  service!: Context['get']
  /**
   * The tools service as a step last found it, without Cordis's tracing wrapper (a read needs no
   * caller, `untraced.ts`), and the count of service changes it was found at. Each `get` wraps the
   * service in a new proxy (about 9 µs of a 170 µs step), so a step keeps it until Cordis reports that
   * a service or a plugin's state changed (`internal/service`, `internal/status`, counted by the agents
   * service: one listener for all its agents), which a provider coming or going always does.
   */
  private toolsService: { service: ToolRegistry | undefined; at: number } | undefined
  private services: ServiceChanges | undefined
  /** The app's events service, untraced (`untraced.ts`): the step's notifications read its listener table. */
  events!: object
  // Layer names are read from the agent's scope when a report is measured, which may be after the agent
  // is disposed (reports are measured on first read: deferred-measures.ts); the tools are fixed at the step.
  readonly reuse = new ReuseTracker(
    () => this.scope?.ctx,
    () => this.toolOrigins(),
  )
  readonly measures: DeferredMeasures

  constructor(readonly agent: AgentFacts, readonly hooks: AgentHooks, init: PartsInit) {
    this.now = init.now ?? (() => Date.now())
    this.truth = new ProviderTruth(agent.wire, init.model)
    this.budget = BudgetTracker.of(init.model, init.profile)
    this.tools = new ToolDeclarations(init.toolChange ?? DEFAULT_TOOL_CHANGE)
    this.guidance = new InertGuidance(this.tools.policy.removed === 'inert')
    this.measures = new DeferredMeasures(this.reuse, this.budget)
  }

  /** Attaches the agent's scope once it exists. */
  attach(scope: ScopeHandle, prompt: SystemPrompt, log: DebugLog, services?: ServiceChanges): void {
    this.scope = scope
    this.prompt = prompt
    this.log = log
    this.service = scope.ctx.get
    this.events = untraced(scope.ctx.events)!
    this.services = services
  }

  /** A restored system-prompt, user or runtime-context entry (`agent.restoreEntry()`). */
  restoreEntry(item: ConversationEntry): void {
    this.record.push(item)
    const request = item.source === 'assistant' ? this.truth.answered() : undefined
    if (request) keepEntryRequest(item, request)
  }

  /** The sections shown with a tool in the restored record's latest prompt version (`agent.restoreKept()`). */
  restoreKept(): void {
    const system = this.latest().system
    const parts = system && typeof system.content === 'string' ? entryParts(system) : undefined
    if (parts?.some((part) => part.tool !== undefined)) this.guidance.restore(parts.map((part) => ({ ...part, text: partText(system!.content as string, part) })))
  }

  /** What a child created under the agent reads of it (`agent.handoff()`, `subagent-start.ts`). */
  handoff(): ParentHandoff {
    const { agent } = this
    const latest = this.latestFormat === undefined ? undefined : this.latestSteps.get(this.latestFormat)
    return {
      id: agent.id, model: agent.model, promptChange: agent.promptChange, routingKey: latest?.input.conversationId ?? agent.routingKey,
      sent: this.sent === undefined ? undefined : this.record.slice(0, this.sent), sessions: this.sessions, reuse: this.measures.current(),
      later: () => (this.disposed || this.sent === undefined ? undefined : this.measures.current()),
    }
  }

  /** Begins a new child as its start says (`agent.seed()`, before its first step). */
  seed(seed: ChildSeed): void {
    this.record.push(...seed.entries)
    // The copied replies count: a Gemini call without an id is named after the replies before it.
    for (const item of seed.entries) if (item.source === 'assistant') this.replies++
    for (const [format, session] of seed.sessions) this.sessions.set(format, session)
    if (seed.measureFrom) this.reuse.inherit(seed.measureFrom)
    this.measureLater = seed.measureLater
  }

  /**
   * At the first step of a `live` child whose parent had sent nothing when it was created: its reports
   * start from the parent's latest requests as they stand now (R-CONV-15). Once, before the step's
   * measurement is queued (the child has none waiting yet).
   */
  inheritLate(): void {
    const later = this.measureLater
    if (later === undefined) return
    this.measureLater = undefined
    const from = later()
    if (from) this.reuse.inherit(from)
  }

  /** The registration behind each tool the agent sees, as it stands now (`undefined` once it is disposed). */
  toolOrigins() {
    if (this.disposed) return undefined
    const at = this.services?.changes
    // Without a count (an agent attached by hand) the service is looked up at every step.
    if (at === undefined || this.toolsService?.at !== at) this.toolsService = { service: untraced(this.service('tools') as ToolRegistry | undefined), at: at ?? -1 }
    return this.toolsService.service?.view(this.agent).origin
  }

  /** The agent's lowering of `format`, made on first use. */
  wireSession<F extends WireFormat>(format: F): WireSession<F> {
    let session = this.sessions.get(format)
    if (!session) this.sessions.set(format, session = new WireSession(format))
    return session as WireSession<F>
  }

  /** Replaces the record with a new epoch's; every format's lowering starts again from it (keeping its head's memo) (the reuse tracker keeps the latest request to measure the next one against). */
  openEpoch(epoch: Epoch, baseline: readonly ConversationEntry[], live: boolean): void {
    const closed = this.record.slice()
    this.record.length = 0
    for (const item of baseline) this.record.push(item)
    this.epochs.open(epoch, closed, live)
    Object.assign(this.latest_, { read: 0, system: undefined, snapshot: undefined })
    for (const session of this.sessions.values()) session.restart()
    // A new epoch settles the tool declarations (inert tools leave, announced ones are declared), and a
    // child can start from the parent only once a request of the new epoch has been sent.
    this.tools.openEpoch()
    this.guidance.openEpoch()
    this.sent = undefined
  }

  /** The latest system-prompt and runtime-context entries of the record (read forward from where it last stopped). */
  latest(): { system?: ConversationEntry; snapshot?: ConversationEntry } {
    const latest = this.latest_
    for (; latest.read < this.record.length; latest.read++) {
      const item = this.record[latest.read]
      if (item.source === 'system-prompt') latest.system = item
      else if (item.source === 'runtime-context') latest.snapshot = item
    }
    return latest
  }
}

/** How many times the app's services or plugin states changed (the agents service counts them). */
export interface ServiceChanges {
  readonly changes: number
}
