import type { Context } from 'cordis'
import type { ScopeHandle, ScopeKey } from 'dsh-scope'
import type { SystemPrompt } from 'dsh-system-prompt'
import {
  buildMessages,
  type ChatRequestMessage, type ContentPart, type RequestBodies,
  type WireFormat, type ModelProfile, type ModelProfileOverride, type Usage,
} from 'dsh-wire'
import type { DebugLog } from './debug-log.js'
import { notify, type Notification } from './notify.js'
import type { ProviderReply, RecordedMessage, RecordOptions, StepOptions, StepResult } from './step-types.js'
import type { Fork, ForkOptions } from './fork.js'
import type { ChildSeed, ParentHandoff, SubagentStart } from './subagent-start.js'
import type { AgentWireOptions } from './wire-options.js'
import type { RequestFacts } from './ledger-request.js'
import { optionsView, sessionView, type PublishedAgentOptions, type PublishedSession } from './published-views.js'
import type { ToolChangeOption, ToolChangePolicy, RestoredDeclaration } from './tool-changes.js'
import type { UnavailableCall } from './tool-unavailable.js'
import type { LedgerItem } from './epoch-log.js'
import type { Epoch, EpochMark, ReanchorPolicy } from './epoch.js'
import { compactionSource, planCompaction, type CompactionOptions, type CompactionPlan, type CompactionSource, type CompactionSourceOptions } from './compaction.js'
import type { ResumeGuard } from './resume-guard.js'
import { AgentParts, type ServiceChanges } from './agent-parts.js'
import { recordReply } from './agent-reply.js'
import { runStep } from './agent-step.js'
import { compactionHost, forkOf } from './agent-hosts.js'
import { agentDisposed, stepListenerFailed, usageListenerFailed } from './errors.js'
import type { ConversationEntry, PromptChangePolicy } from './conversation.js'

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
  /** Which re-anchor a compaction takes (`cheapest` unless the agent was created with another). */
  readonly reanchor: ReanchorPolicy
  /** The agent's `wire` options (checked), if any. */
  readonly wire?: AgentWireOptions
  /** The record, the lowerings and the collaborators the step, reply, fork and compaction modules share (`agent-parts.ts`). */
  private readonly parts: AgentParts

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
    // `agent/step` for a whole step or fork, `agent/usage` for a recorded reply's usage: Cordis's emit throws a
    // listener's failure at the emitter, but a listener cannot undo the step or the reply, so its failure is logged.
    // Made once, not at every step (the events service is read once too: `untraced.ts`).
    const report = (error: Error) => this.parts.log.warn(error)
    const stepped: Notification = { failure: (plugin, error) => stepListenerFailed(this.id, plugin, error), report }
    const used: Notification = { failure: (plugin, error) => usageListenerFailed(this.id, plugin, error), report }
    this.parts = new AgentParts(this, {
      assemble: (signal) => this.parts.prompt.assemble({ scope: this, agent: this, signal }),
      step: (result) => notify(this.parts.scope.ctx, 'agent/step', [this, result], stepped, this.parts.events),
      usage: (usage) => notify(this.parts.scope.ctx, 'agent/usage', [this, usage], used, this.parts.events),
    }, init)
  }

  /** How a tool change enters the requests, per kind (`removed`, `added`, `edited`, `reordered`). */
  get toolChange(): ToolChangePolicy {
    return this.parts.tools.policy
  }

  /**
   * The epoch hook: the next request declares the live tools exactly (inert tools and tools announced
   * for the next epoch are settled then). The compaction that opens an epoch calls it.
   */
  openToolEpoch(): void {
    this.parts.tools.openEpoch()
  }

  /** The model profile the agent's requests are measured against: the table's row (or the default) with the deployment's overrides. */
  get profile(): ModelProfile {
    return this.parts.budget.profile
  }

  /**
   * @internal Attaches the agent's scope once it exists; `services` counts the app's service changes
   * (the agents service keeps it), so the agent knows when a service it keeps may have changed.
   */
  attach(scope: ScopeHandle, prompt: SystemPrompt, log: DebugLog, services?: ServiceChanges): void {
    this.parts.attach(scope, prompt, log, services)
  }

  /** @internal Marks the agent gone (its scope was disposed). */
  markDisposed(): void {
    this.parts.disposed = true
  }

  /** @internal How many ledger lines `agents.restore()` restored this agent from (a `LedgerWriter` then needs `stored`). */
  restoredLines?: number

  /** @internal Set by `agents.restore()`: compares the first step's prompt with the ledger's (`resume-guard.ts`). */
  resumeGuard?: ResumeGuard

  /** @internal Appends a restored system-prompt, user or runtime-context entry (`agents.restore()`; replies and tool results go through `record()`). */
  restoreEntry(item: ConversationEntry): void {
    this.parts.restoreEntry(item)
  }

  /** @internal Takes back the facts of the request the next restored reply answers (`agents.restore()`): the TTL plan reads them, the reply's ledger line keeps them. */
  restoreRequest(facts: RequestFacts): void {
    this.parts.truth.restored(facts)
  }

  /** @internal What a child created under this agent reads of it (`subagent-start.ts`). */
  handoff(): ParentHandoff {
    return this.parts.handoff()
  }

  /** @internal Begins a new child as its start says (before its first step). */
  seed(seed: ChildSeed): void {
    this.parts.seed(seed)
  }

  /** The agent's scoped context: what is registered through it is agent-local and dies with the agent. */
  get ctx(): Context {
    return this.parts.scope.ctx
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
    return this.parts.disposed
  }

  /** The append-only conversation record. */
  get conversation(): readonly ConversationEntry[] {
    return this.parts.record
  }

  /** The messages the next request would carry, without assembling (for inspection). */
  messages(): ChatRequestMessage[] {
    return buildMessages(this.parts.record, this.promptChange)
  }

  /**
   * Records `input` (if given), assembles for the agent's scope, records a changed system prompt and a
   * changed runtime-context snapshot, and resolves to the request. A failure records nothing.
   */
  async step<F extends WireFormat = 'openai-chat', const X extends object = {}>(input?: string | readonly ContentPart[], options: StepOptions<F, X> = {}): Promise<RequestBodies[F] & X> {
    return (await this.stepDetailed(input, options)).request as RequestBodies[F] & X
  }

  /** `step()`, resolving to the request together with the assembly and the rendered texts. */
  stepDetailed<F extends WireFormat = 'openai-chat', const X extends object = {}>(input?: string | readonly ContentPart[], options: StepOptions<F, X> = {}): Promise<StepResult<F>> {
    return runStep(this.parts, input, options)
  }

  /**
   * A side request (`compact`, `title`, `aside`, ...): the agent's latest request of the format, byte for
   * byte, plus one trailing user message (`instruction`), its tools declared and inert. The agent's
   * record, reports and ledger stay as they were; the fork's report and `agent/step` event carry
   * `side: { kind }`, and `fork.parity()` names where it stops repeating the latest request (`fork.ts`).
   */
  fork<F extends WireFormat = WireFormat>(options: ForkOptions<F>): Promise<Fork<F>> {
    return forkOf(this.parts, options)
  }

  /** The epochs this agent's compactions opened, oldest first (a restored agent's from its ledger). */
  get epochs(): readonly Epoch[] {
    return this.parts.epochs.epochs
  }

  /**
   * What to hand a summarizer before a compaction that keeps `keep`: the record before the kept tail as
   * text (no system-prompt version, no snapshot: a `verbatim` section is never in it), the text of the
   * `summary` sections, and an instruction for a `compact` fork (`compaction.ts`).
   */
  async compactionSource(options: CompactionSourceOptions = {}): Promise<CompactionSource> {
    if (this.parts.disposed) throw agentDisposed(this.id)
    return compactionSource(compactionHost(this.parts), options)
  }

  /**
   * Prices both re-anchors of a compaction with `summary` that keeps `keep` (R-EPOCH-2) and returns the
   * plan: `plan.offered`, `plan.choice` (the agent's `reanchor` policy), `plan.apply(kind?)`. Nothing
   * changes until `apply()`.
   */
  async planCompaction(options: CompactionOptions): Promise<CompactionPlan> {
    if (this.parts.disposed) throw agentDisposed(this.id)
    return planCompaction(compactionHost(this.parts), options)
  }

  /** `planCompaction(options)` applied with the policy's choice: opens the new epoch and returns it. */
  async compact(options: CompactionOptions): Promise<Epoch> {
    return (await this.planCompaction(options)).apply()
  }

  /** @internal Restores an epoch's mark from a ledger (`agents.restore()`); the baseline entries follow through `restoreEntry`. */
  restoreEpoch(mark: EpochMark): void {
    this.parts.openEpoch({ ...mark, offered: mark.offered ?? [mark.predicted], horizon: mark.horizon ?? 0 }, [], false)
  }

  /** @internal What the restored ledger's last request declared (`agents.restore()`, R-LEDGER-9): the first step plans its tools from it. */
  restoreTools(state: RestoredDeclaration): void {
    this.parts.tools.restore(state)
  }

  /** @internal Takes the sections shown with a tool from the restored record's latest prompt version: kept while their tool is not offered (`agents.restore()`, after the entries). */
  restoreKept(): void {
    this.parts.restoreKept()
  }

  /** @internal The ledger's items after the header: the closed epochs' entries and marks, then the record. */
  ledgerItems(from = 0): LedgerItem[] {
    return this.parts.epochs.items(this.parts.record, from)
  }

  /** @internal How many ledger lines follow the header. */
  get ledgerLength(): number {
    return this.parts.epochs.length(this.parts.record.length)
  }

  /**
   * Appends the model's reply or a tool result to the record; `usage` is kept with the reply. Given a
   * whole provider reply and its `format` (`record(message, { format: 'anthropic' })`), the format's
   * reader turns it into the record's reply first (a Gemini call without an id gets `gemini-<n>-<i>`,
   * `n` the replies recorded before it); a reply not of the format's shape throws its `WIRE_*` code.
   * The message is then checked and copied by `entry-shape.ts` (the ledger reads through the same rules).
   * Returns the reply's calls to tools the agent declares but cannot run now (`tool-unavailable.ts`), each
   * with its `AGENT_TOOL_UNAVAILABLE` error and the tool result to record for it; usually none.
   */
  record(message: RecordedMessage | ProviderReply, options: RecordOptions = {}): UnavailableCall[] {
    return recordReply(this.parts, message, options)
  }

  /** Disposes the agent's scope and everything registered through it. Idempotent. */
  dispose(): Promise<void> {
    this.parts.disposed = true
    return this.parts.scope.dispose()
  }
}
