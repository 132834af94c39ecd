import { Context, Service } from 'cordis'
import { checkedWire } from './wire-options.js'
import z from 'schemastery'
import { createScope, markNoShadow, ownEffect, type ScopeHandle, type ScopeKey } from 'dsh-scope'
import { overrideProblem } from 'dsh-wire/internal'
import type { SystemPrompt } from 'dsh-system-prompt'
import { Agent, DEFAULT_STEP_TIMEOUT, type AgentOptions } from './agent.js'
import { debugLog } from './debug-log.js'
import type { PromptChangePolicy } from './conversation.js'
import {
  duplicateAgent, duplicatePreset, invalidAgentId, invalidCompaction, invalidModel, invalidPresetId, invalidPromptChange, invalidParent, invalidResumePolicy, invalidToolChange, invalidProfile, unknownParent,
  unknownPreset,
} from './errors.js'
import { readLedger, type LedgerInput, type ReadLedgerOptions } from './ledger-read.js'
import { replayEntries } from './ledger-restore.js'
import { restoredDeclaration } from './ledger-tools.js'
import { keepLedgerVersion } from './ledger-format.js'
import { RESUME_POLICIES, ResumeGuard, type ResumePolicy, type ResumeReport } from './resume-guard.js'
import { announceResume } from './resume-event.js'
import { emitSessionStart } from './session-start.js'
import { checkedStart, childRoutingKey, childSeed, type SubagentStart } from './subagent-start.js'
import { ToolChangeSchema, toolChangePolicy, type ToolChangeOption } from './tool-change-policy.js'

declare module 'cordis' {
  interface Context {
    agents: Agents
  }
}

/** Configuration of the `agents` service (`dsh-agent`). */
export interface Config {
  promptChange: PromptChangePolicy
  /** How long one step's assembly may take, in milliseconds (0: no bound). */
  stepTimeout: number
  /** How a tool change enters the requests, per kind (`tool-changes.ts`). */
  toolChange: ToolChangeOption
  /** The clock the agents read (the time of each request, the gaps the TTL plan measures); default `Date.now`. For tests and replays. */
  now?: () => number
}

/** The schemastery schema of {@link Config}. */
export const Config: z<Partial<Config>, Config> = z.object({
  promptChange: z.union(['append', 'replace'] as const).default('append')
    .description('How a changed system prompt enters the requests: `append` adds the new complete version later in the conversation (earlier messages, and the provider\'s cached prefix, stay as they were); `replace` keeps one system prompt at the head of every request and replaces it.'),
  stepTimeout: z.natural().default(DEFAULT_STEP_TIMEOUT)
    .description('How long one step\'s assembly may take, in milliseconds, before the step rejects with AGENT_STEP_TIMEOUT naming the plugins of the assemble listeners (0: no bound). A step\'s own `timeout` option overrides it.'),
  toolChange: ToolChangeSchema.default('default'),
  now: z.function()
    .description('The clock the agents read, returning milliseconds since the epoch (default `Date.now`, read at each call): the time of each request and the gaps the TTL plan measures. Set it from code, for tests and replays.'),
}) as any

/** Options of `agents.restore()`: the ledger's kept head, and what the first step does when the prompt changed meanwhile. */
export interface RestoreOptions extends ReadLedgerOptions {
  /**
   * When the system prompt rendered at the first step differs from the ledger's last version:
   * `authoritative` sends the stored version as it was (kept while the deployment renders the same),
   * `new-epoch` (default) sends the new one as the agent's `promptChange` records any change.
   */
  resume?: ResumePolicy
  /** Called with the first step's resume report before that step's request is returned (also `agent/resume` and `result.resume`). */
  onResume?: (report: ResumeReport) => void
}

/**
 * What `create()` needs: the agent's facts, its parent given as an `Agent` or an id, and for a
 * sub-agent how it starts (`parent`, `live`: the default, or `fresh`; see `subagent-start.ts`).
 */
export type CreateAgentOptions = AgentOptions<Agent | string> & { start?: SubagentStart }

/** A preset's standing scope, shared by the agents created with it. */
export interface PresetHandle extends ScopeHandle {
  readonly id: string
}

/**
 * The `agents` service: one scope per agent, presets as standing parent scopes, the loop variables
 * `model`, `provider` and `cwd`, and per-step assembly into chat-completions requests.
 */
export class Agents extends Service {
  static inject = ['systemPrompt']
  static Config = Config
  declare ctx: Context
  private readonly live = new Map<string, Agent>()
  private readonly presets = new Map<string, PresetHandle>()
  private readonly prompt: SystemPrompt
  /** Service and plugin-state changes in the app, counted for the agents (which keep services between steps). */
  private readonly services = { changes: 0 }

  constructor(ctx: Context, readonly config: Config) {
    super(ctx, 'agents')
    markNoShadow(this)
    this.prompt = ctx.systemPrompt
    const changed = () => { this.services.changes++ }
    ctx.on('internal/service', changed)
    ctx.on('internal/status', changed)
    // Fixed for one agent's conversation, different between agents.
    ctx.systemPrompt.variable('model', (context) => context.agent?.model, { volatility: 'conversation' })
    ctx.systemPrompt.variable('provider', (context) => context.agent?.provider, { volatility: 'conversation' })
    ctx.systemPrompt.variable('cwd', (context) => context.agent?.cwd, { volatility: 'conversation' })
  }

  /**
   * Creates an agent whose scope is a child of the calling context (the agent is disposed with the
   * calling plugin). The calling context must inject the services the agent's registrations will use.
   */
  async create(options: CreateAgentOptions): Promise<Agent> {
    const agent = this.make(options)
    emitSessionStart(this.ctx, agent, 'startup', this.warn)
    return agent
  }

  /** Reports a failed `agent/session-start` listener on the `dsh-agent` logger: its message, without its stack (as `agent/step`'s). */
  private readonly warn = (error: Error) => this.ctx.logger('dsh-agent').warn(error.message)

  /**
   * Creates an agent as `create()` does, without emitting `agent/session-start`. `restored`: the start
   * and routing key a ledger recorded (the record comes from the ledger, so nothing is copied from the parent).
   */
  private make(options: CreateAgentOptions, restored?: { start?: SubagentStart; routingKey?: string }): Agent {
    const { id, model, provider, cwd, preset } = options ?? ({} as CreateAgentOptions)
    if (typeof id !== 'string' || !id) throw invalidAgentId(id)
    if (typeof model !== 'string' || !model) throw invalidModel(id)
    if (this.live.has(id)) throw duplicateAgent(id)
    const promptChange = options.promptChange ?? this.config.promptChange
    if (promptChange !== 'append' && promptChange !== 'replace') throw invalidPromptChange(promptChange)
    const toolChange = toolChangePolicy(options.toolChange ?? this.config.toolChange)
    if ('key' in toolChange) throw invalidToolChange(id, toolChange.key, toolChange.received)
    const profileProblem = options.profile === undefined ? undefined : overrideProblem(options.profile, model)
    if (profileProblem) throw invalidProfile(id, profileProblem.key, profileProblem.reason)
    let parentKey: ScopeKey | undefined
    if (preset !== undefined) {
      const handle = this.presets.get(preset)
      if (!handle) throw unknownPreset(preset, [...this.presets.keys()].sort())
      parentKey = handle.key
    }
    let parent: Agent | undefined
    if (options.parent !== undefined) {
      if (typeof options.parent !== 'string' && !(options.parent instanceof Agent)) throw invalidParent(id, options.parent)
      parent = typeof options.parent === 'string' ? this.live.get(options.parent) : options.parent
      if (!parent || parent.disposed) throw unknownParent(id, typeof options.parent === 'string' ? options.parent : options.parent.id)
      parentKey ??= parent
    }
    const { reanchor } = options
    if (reanchor !== undefined && reanchor !== 'cheapest' && reanchor !== 'stable-opening' && reanchor !== 'new-opening') throw invalidCompaction(id, `reanchor must be "cheapest", "stable-opening" or "new-opening", received ${JSON.stringify(reanchor)}`)
    const handoff = restored ? undefined : parent?.handoff()
    const start = restored ? restored.start : checkedStart({ id, start: options.start, model, promptChange: options.promptChange }, handoff)
    const lineage = handoff && start
      ? { start, routingKey: childRoutingKey(start, handoff, id), ...(start === 'parent' ? { promptChange: handoff.promptChange } : {}) }
      : { ...restored }
    const wire = checkedWire(id, options.wire)
    const agent = new Agent({
      id, model, provider, cwd, preset, parent, promptChange, stepTimeout: this.config.stepTimeout ?? DEFAULT_STEP_TIMEOUT, profile: options.profile, toolChange, reanchor, ...lineage,
      ...(wire ? { wire } : {}), ...(this.config.now ? { now: this.config.now } : {}),
    })
    if (handoff && start) agent.seed(childSeed(start, handoff))
    const scope = createScope(this.ctx, agent, { parent: parentKey, label: `agent:${id}` })
    const logger = this.ctx.logger('dsh-agent')
    agent.attach(scope, this.ctx.reflect.trace(this.prompt) as SystemPrompt, debugLog(logger, `agent=${id} `), this.services)
    this.live.set(id, agent)
    // Owned by the scope without making it a Cordis fiber of its own (see dsh-scope's ownEffect).
    ownEffect(scope.ctx, () => {
      agent.markDisposed()
      if (this.live.get(id) === agent) this.live.delete(id)
    })
    return agent
  }

  /**
   * Restores an agent from its ledger (`exportLedger(agent)`, or the lines of a `LedgerStore`): an agent
   * created as `create()` does from the header's facts (id, model, policy, provider, cwd, preset,
   * parent: the preset and the parent agent must exist; its `wire` options, with the TTL plan's
   * measures of the requests its replies answered, R-LEDGER-10), whose record holds the ledger's entries, so
   * its next request is byte-identical to the one the exported agent would have sent. The whole ledger
   * is checked first; a problem rejects with a coded error naming its line (`AGENT_LEDGER_*`) and
   * nothing is restored (an agent already created is disposed again). Its first step compares the
   * prompt it renders with the ledger's last version and, when they differ, acts by `options.resume`
   * and reports it (`resume-guard.ts`).
   */
  async restore(ledger: LedgerInput, options: RestoreOptions = {}): Promise<Agent> {
    const policy = options.resume ?? 'new-epoch'
    if (!RESUME_POLICIES.includes(policy)) throw invalidResumePolicy(policy)
    const { header, entries, epochs } = readLedger(ledger, options)
    const agent = this.make({
      id: header.agent, model: header.model, promptChange: header.promptChange,
      ...(header.provider === undefined ? {} : { provider: header.provider }),
      ...(header.cwd === undefined ? {} : { cwd: header.cwd }),
      ...(header.preset === undefined ? {} : { preset: header.preset }),
      ...(header.parent === undefined ? {} : { parent: header.parent }),
      ...(header.wire === undefined ? {} : { wire: header.wire }),
    }, { ...(header.start === undefined ? {} : { start: header.start }), ...(header.routingKey === undefined ? {} : { routingKey: header.routingKey }) })
    // An agent restored from an older format goes on writing it (its ledger stays one format).
    keepLedgerVersion(agent, header.version)
    try {
      replayEntries(agent, entries, epochs)
      agent.restoreKept()
      const declaration = restoredDeclaration(entries, epochs)
      if (declaration) agent.restoreTools(declaration)
    } catch (error) {
      await agent.dispose()
      throw error
    }
    agent.restoredLines = entries.length + epochs.length + 1
    agent.resumeGuard = new ResumeGuard(agent, policy, (report) => announceResume(agent.ctx, agent, report, options.onResume, this.warn))
    emitSessionStart(this.ctx, agent, 'resume', this.warn)
    return agent
  }

  /**
   * Defines a preset's standing scope through the calling context (it lives as long as that context).
   * Registrations made through the returned `ctx` (persona, sections, tool restrictions) apply to every
   * agent created with `preset: id`, unless the agent shadows them.
   */
  definePreset(id: string): PresetHandle {
    if (typeof id !== 'string' || !id) throw invalidPresetId(id)
    if (this.presets.has(id)) throw duplicatePreset(id)
    const key = { preset: id }
    const scope = createScope(this.ctx, key, { label: `preset:${id}` })
    const handle: PresetHandle = { id, key: scope.key, ctx: scope.ctx, dispose: () => scope.dispose() }
    this.presets.set(id, handle)
    ownEffect(scope.ctx, () => {
      if (this.presets.get(id) === handle) this.presets.delete(id)
    })
    return handle
  }

  /** A live agent by id. */
  get(id: string): Agent | undefined {
    return this.live.get(id)
  }

  /** The live agents, in creation order. */
  list(): Agent[] {
    return [...this.live.values()]
  }

  /** A preset by id. */
  preset(id: string): PresetHandle | undefined {
    return this.presets.get(id)
  }

  /** The defined preset ids, in name order. */
  presetIds(): string[] {
    return [...this.presets.keys()].sort()
  }
}

// The plugin's name, as Cordis names its fiber: the package's name, so every owner of what the service
// registers itself reads the same in a step's report, `explain`, events and the ledger (issue 24).
Object.defineProperty(Agents, 'name', { value: 'dsh-agent' })
