/**
 * `dsh-plugin-policies`: the work-mode sections `plan:policy` and `team:policy`, and the runtime contexts
 * `sandbox:policy` and `approval:policy` whose text comes from the config. Default-exports the plugin, so
 * a deployment row can name the package alone.
 * @module
 */
import type { Context } from 'cordis'
import type {} from 'dsh-system-prompt'
import { approvalText } from './approval.js'
import { Config } from './config.js'
import { sandboxText } from './sandbox.js'

export { APPROVAL_MODES, APPROVAL_TEXTS, approvalText } from './approval.js'
export type { ApprovalMode } from './approval.js'
export { SANDBOX_MODES, sandboxText } from './sandbox.js'
export type { SandboxFacts, SandboxMode } from './sandbox.js'
export { DEFAULT_PLAN_TEXT, DEFAULT_TEAM_TEXT } from './work-modes.js'
export { Config } from './config.js'
export type { ApprovalPolicy, ConfigInput, SandboxPolicy, SectionPolicy } from './config.js'
export * as PolicyErrors from './errors.js'

/** The plugin's name (the owner named in assemblies and error messages). */
export const name = 'dsh-plugin-policies'

/** Services the plugin needs. */
export const inject = ['systemPrompt']

/** The work-mode section on planning. */
export const PLAN_POLICY = 'plan:policy'
/** The work-mode section on working with other agents. */
export const TEAM_POLICY = 'team:policy'
/** The runtime context stating the sandbox. */
export const SANDBOX_POLICY = 'sandbox:policy'
/** The runtime context stating the approval mode. */
export const APPROVAL_POLICY = 'approval:policy'

/** The sandbox context's text for a config, or `undefined` when the config registers none. */
export function sandboxContextText(config: Config['sandbox']): string | undefined {
  if (!config.enabled) return undefined
  if (config.text !== undefined) return config.text
  return config.mode && sandboxText({ mode: config.mode, writableRoots: config.writableRoots, network: config.network })
}

/** The approval context's text for a config, or `undefined` when the config registers none. */
export function approvalContextText(config: Config['approval']): string | undefined {
  if (!config.enabled) return undefined
  if (config.text !== undefined) return config.text
  return config.mode && approvalText(config.mode)
}

/**
 * Registers the enabled parts through the plugin's context, each at its named placement. Loaded through a
 * scoped context (a preset's or an agent's), the registrations shadow the global ones of the same name
 * for that scope only. Disposing the plugin removes them all.
 */
export function apply(ctx: Context, config: Config): void {
  const prompt = ctx.systemPrompt
  if (config.plan.enabled) prompt.section({ name: PLAN_POLICY, order: prompt.getSectionOrder(PLAN_POLICY), text: config.plan.text })
  if (config.team.enabled) prompt.section({ name: TEAM_POLICY, order: prompt.getSectionOrder(TEAM_POLICY), text: config.team.text })
  const sandbox = sandboxContextText(config.sandbox)
  if (sandbox !== undefined) prompt.context({ name: SANDBOX_POLICY, order: prompt.getContextOrder(SANDBOX_POLICY), text: sandbox })
  const approval = approvalContextText(config.approval)
  if (approval !== undefined) prompt.context({ name: APPROVAL_POLICY, order: prompt.getContextOrder(APPROVAL_POLICY), text: approval })
}

/** The plugin object. */
export const Policies = { name, inject, Config, apply }

export default Policies
