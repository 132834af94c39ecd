/**
 * The configuration of `dsh-plugin-policies`, as a schemastery schema with every key described.
 * @module
 */
import { VARIABLE_NAME } from 'dsh-system-prompt'
import z from 'schemastery'
import { APPROVAL_MODES, type ApprovalMode } from './approval.js'
import { emptyText, relativeRoot, rootsNeedWorkspaceWrite, repeatedRoot } from './errors.js'
import { SANDBOX_MODES, type SandboxMode } from './sandbox.js'
import { DEFAULT_PLAN_TEXT, DEFAULT_TEAM_TEXT } from './work-modes.js'

/** A work-mode section: on or off, and its text (a strict `{{variable}}` template). */
export interface SectionPolicy {
  enabled: boolean
  text: string
}

/** The sandbox context. Registered only when enabled and `mode` or `text` is set. */
export interface SandboxPolicy {
  enabled: boolean
  mode?: SandboxMode
  writableRoots: string[]
  network: boolean
  /** Replaces the generated text (then `mode`, `writableRoots` and `network` are not rendered). */
  text?: string
}

/** The approval context. Registered only when enabled and `mode` or `text` is set. */
export interface ApprovalPolicy {
  enabled: boolean
  mode?: ApprovalMode
  /** Replaces the generated text. */
  text?: string
}

/** The resolved configuration. */
export interface Config {
  plan: SectionPolicy
  team: SectionPolicy
  sandbox: SandboxPolicy
  approval: ApprovalPolicy
}

/** What a deployment may write: every key is optional. */
export interface ConfigInput {
  plan?: Partial<SectionPolicy>
  team?: Partial<SectionPolicy>
  sandbox?: Partial<SandboxPolicy>
  approval?: Partial<ApprovalPolicy>
}

const section = (name: string, what: string, text: string) => z.object({
  enabled: z.boolean().default(true).description(`Register the \`${name}\` section.`),
  text: z.string().default(text).description(`The \`${name}\` text (${what}). A strict \`{{variable}}\` template.`),
})

const fields = z.object({
  plan: section('plan:policy', 'how to plan work with several steps', DEFAULT_PLAN_TEXT)
    .description('The `plan:policy` system-prompt section.'),
  team: section('team:policy', 'how to work with other agents', DEFAULT_TEAM_TEXT)
    .description('The `team:policy` system-prompt section.'),
  sandbox: z.object({
    enabled: z.boolean().default(true)
      .description('Register the `sandbox:policy` runtime context (when `mode` or `text` is set).'),
    mode: z.union(SANDBOX_MODES)
      .description('What the sandbox allows: `read-only`, `workspace-write` or `full-access`. Not set: no sandbox context (the plugin never guesses).'),
    writableRoots: z.array(z.string()).default([])
      .description('With `workspace-write`: the absolute folders writes are allowed in (a `{{variable}}` such as `{{cwd}}` works). Empty: the working folder.'),
    network: z.boolean().default(false)
      .description('Whether commands may reach the network.'),
    text: z.string()
      .description('Replaces the generated sandbox text. A strict `{{variable}}` template.'),
  }).description('The `sandbox:policy` runtime context (in the snapshot, not the system prompt).'),
  approval: z.object({
    enabled: z.boolean().default(true)
      .description('Register the `approval:policy` runtime context (when `mode` or `text` is set).'),
    mode: z.union(APPROVAL_MODES)
      .description('When the user approves commands: `untrusted`, `on-request`, `on-failure` or `never`. Not set: no approval context.'),
    text: z.string()
      .description('Replaces the generated approval text. A strict `{{variable}}` template.'),
  }).description('The `approval:policy` runtime context (in the snapshot, not the system prompt).'),
})

// Absolute POSIX or Windows paths, or a path that starts with a {{variable}} reference (names by the one rule).
const ABSOLUTE_ROOT = new RegExp(String.raw`^(\/|[A-Za-z]:[\\/]|\{\{${VARIABLE_NAME.source.slice(1, -1)}\}\})`)

/** The schemastery schema of {@link Config}: cross-field checks run after the per-key ones. */
export const Config: z<ConfigInput, Config> = z.transform(fields, (value) => {
  const config = value as unknown as Config
  for (const part of ['plan', 'team', 'sandbox', 'approval'] as const) {
    const { enabled, text } = config[part]
    if (enabled && text !== undefined && !text.trim()) throw emptyText(part)
  }
  const { mode, writableRoots } = config.sandbox
  if (writableRoots.length && mode !== 'workspace-write') throw rootsNeedWorkspaceWrite(mode)
  writableRoots.forEach((root, index) => {
    if (!ABSOLUTE_ROOT.test(root)) throw relativeRoot(index, root)
    if (writableRoots.indexOf(root) !== index) throw repeatedRoot(root)
  })
  return config
}, true).default({} as Config /* every key has its own default */) as unknown as z<ConfigInput, Config>
