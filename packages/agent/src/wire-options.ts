/**
 * An agent's `wire` options: how its requests use the provider's own mechanisms (issue 23). The
 * capability-table overrides for mid-conversation prompt versions, the diagnostics bridge, the priced
 * TTL plan and the price table. One key on `agents.create()` and on a deployment's `agents:` row, checked
 * here (`AGENT_INVALID_WIRE`, naming the key at fault).
 * @module
 */
import { PROMPT_UPDATE_LOWERINGS, type PromptUpdateOverrides } from 'dsh-wire'
import { invalidWire } from './errors.js'
import { priceProblem, type PriceTable } from 'dsh-wire'

/** An agent's `wire` options. */
export interface AgentWireOptions {
  /**
   * Overrides of the format's capability table, by model-name prefix: `system-message` (send a new
   * prompt version as a mid-conversation system message) or `marker` (as a user message with the marker
   * line). Only formats that decide per model (Anthropic) read them.
   */
  promptUpdates?: PromptUpdateOverrides
  /**
   * The diagnostics bridge: every request carries the provider's diagnostics field with the previous
   * reply's id (Anthropic `diagnostics.previous_message_id`, OpenAI Responses
   * `prompt_cache_options.comparison_response_id`), and the report joins the provider's miss reason with
   * dsh's own break (`report.providerMiss`).
   */
  diagnostics?: boolean
  /** Anthropic: choose each breakpoint's TTL from the measured gaps between this agent's requests (`report.ttlPlan`). */
  ttlPlan?: boolean
  /** Prices per million tokens by model-name prefix: the report's figures in money (`report.cost`). */
  prices?: PriceTable
  /**
   * A tool that appears mid-conversation goes through the format's append path where it has one
   * (R-TOOL-13; Anthropic's `tool_addition` in a system message, a beta): the harness sends the header
   * the step's `headers` names. Off: an added tool is declared at once (a predicted, reported break).
   */
  toolAdditions?: boolean
}

/** `wire` as given, checked: throws `AGENT_INVALID_WIRE` naming the key at fault. */
export function checkedWire(id: string, wire: unknown): AgentWireOptions | undefined {
  if (wire === undefined) return undefined
  if (typeof wire !== 'object' || wire === null || Array.isArray(wire)) throw invalidWire(id, '', 'expected an object')
  const { promptUpdates, diagnostics, ttlPlan, prices, toolAdditions, ...rest } = wire as Record<string, unknown>
  for (const key of Object.keys(rest)) throw invalidWire(id, key, 'unknown key (known: promptUpdates, diagnostics, ttlPlan, prices, toolAdditions)')
  if (promptUpdates !== undefined) {
    if (typeof promptUpdates !== 'object' || promptUpdates === null || Array.isArray(promptUpdates)) throw invalidWire(id, 'promptUpdates', 'expected an object of model-name prefix → lowering')
    for (const [prefix, lowering] of Object.entries(promptUpdates)) {
      if (!(PROMPT_UPDATE_LOWERINGS as readonly unknown[]).includes(lowering)) throw invalidWire(id, `promptUpdates.${prefix}`, `expected ${PROMPT_UPDATE_LOWERINGS.map((name) => JSON.stringify(name)).join(' or ')}, received ${JSON.stringify(lowering)}`)
    }
  }
  for (const [key, value] of [['diagnostics', diagnostics], ['ttlPlan', ttlPlan], ['toolAdditions', toolAdditions]] as const) {
    if (value !== undefined && typeof value !== 'boolean') throw invalidWire(id, key, `expected true or false, received ${JSON.stringify(value)}`)
  }
  if (prices !== undefined) {
    const problem = priceProblem(prices)
    if (problem) throw invalidWire(id, `prices${problem.key ? `.${problem.key}` : ''}`, problem.reason)
  }
  return Object.freeze({ ...(wire as AgentWireOptions) })
}

/** `wire` in the fixed key order a ledger header writes it (R-LEDGER-10); nested values keep their own order. */
export function canonicalWire(wire: AgentWireOptions): AgentWireOptions {
  const canonical: AgentWireOptions = {}
  if (wire.promptUpdates !== undefined) canonical.promptUpdates = wire.promptUpdates
  if (wire.diagnostics !== undefined) canonical.diagnostics = wire.diagnostics
  if (wire.ttlPlan !== undefined) canonical.ttlPlan = wire.ttlPlan
  if (wire.prices !== undefined) canonical.prices = wire.prices
  if (wire.toolAdditions !== undefined) canonical.toolAdditions = wire.toolAdditions
  return canonical
}
