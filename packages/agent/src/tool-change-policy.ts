/**
 * An agent's tool-change policy (R-TOOL-11): per kind of change (`removed`, `added`, `edited`,
 * `reordered`), how it enters the requests; the named policies (`default`, `immediate`, `epoch`), the
 * check of an option and its schemastery schema. What each choice does is `tool-changes.ts`'s.
 * @module
 */
import z from 'schemastery'

/** How one kind of change enters the requests. */
export interface ToolChangePolicy {
  removed: 'inert' | 'immediate'
  added: 'append-path' | 'immediate' | 'epoch'
  edited: 'immediate' | 'epoch'
  reordered: 'keep' | 'immediate'
}

/** An agent's `toolChange` option: a policy by kind (missing kinds take the default), or a name for a whole policy. */
export type ToolChangeOption = 'default' | 'immediate' | 'epoch' | Partial<ToolChangePolicy>

/** The choices of each kind, the first the default. */
export const TOOL_CHANGE_CHOICES: { readonly [K in keyof ToolChangePolicy]: readonly ToolChangePolicy[K][] } = Object.freeze({
  removed: ['inert', 'immediate'], added: ['append-path', 'immediate', 'epoch'], edited: ['immediate', 'epoch'], reordered: ['keep', 'immediate'],
})

const NAMED: Readonly<Record<string, ToolChangePolicy>> = Object.freeze({
  default: Object.freeze({ removed: 'inert', added: 'append-path', edited: 'immediate', reordered: 'keep' }),
  immediate: Object.freeze({ removed: 'immediate', added: 'immediate', edited: 'immediate', reordered: 'immediate' }),
  epoch: Object.freeze({ removed: 'inert', added: 'epoch', edited: 'epoch', reordered: 'keep' }),
})

/** The default policy: no break for a removed tool or a new order; an added or edited tool declared at once. */
export const DEFAULT_TOOL_CHANGE: ToolChangePolicy = NAMED.default

/** Every kind `immediate`: the request declares the live tools (dsh's behaviour before the policy, and an epoch's). */
export const IMMEDIATE_TOOL_CHANGE: ToolChangePolicy = NAMED.immediate

/** `option` as a whole policy, or the problem (`key`, `received`) when it is not one. */
export function toolChangePolicy(option: unknown): ToolChangePolicy | { key: string; received: unknown } {
  if (option === undefined) return DEFAULT_TOOL_CHANGE
  if (typeof option === 'string') return Object.hasOwn(NAMED, option) ? NAMED[option] : { key: 'toolChange', received: option }
  if (typeof option !== 'object' || option === null || Array.isArray(option)) return { key: 'toolChange', received: option }
  const policy: Record<string, string> = { ...DEFAULT_TOOL_CHANGE }
  for (const [key, value] of Object.entries(option)) {
    if (value === undefined) continue
    const choices = (TOOL_CHANGE_CHOICES as Record<string, readonly string[]>)[key]
    if (!choices || !choices.includes(value as string)) return { key: choices ? `toolChange.${key}` : `toolChange.${key} (not a kind of change)`, received: value }
    policy[key] = value as string
  }
  return Object.freeze(policy) as unknown as ToolChangePolicy
}

/** The schemastery schema of {@link ToolChangeOption} (the `agents` service's `toolChange`, a deployment's agent row). */
export const ToolChangeSchema = z.union([
  z.union(['default', 'immediate', 'epoch'] as const),
  z.object({
    removed: z.union(TOOL_CHANGE_CHOICES.removed).description('A tool whose plugin was disposed or that a restriction hides: `inert` keeps it declared (calls answered AGENT_TOOL_UNAVAILABLE, the model told once), `immediate` stops declaring it (a cache break).'),
    added: z.union(TOOL_CHANGE_CHOICES.added).description('A tool that appears: `append-path` uses the provider\'s append path where dsh has one, else declares it at once (a predicted, reported break); `immediate` declares it at once; `epoch` announces it in a note and declares it at the next epoch.'),
    edited: z.union(TOOL_CHANGE_CHOICES.edited).description('A tool whose definition changed: `immediate` declares the new one (a break); `epoch` keeps the old one declared and announces the new one until the next epoch.'),
    reordered: z.union(TOOL_CHANGE_CHOICES.reordered).description('Tools offered in a new order: `keep` keeps the declared order; `immediate` declares the new order (a break).'),
  }),
]).description('How a tool change enters the requests, per kind (docs/sessions.md, "Tool changes without a cache bust"): `default`, `immediate` (every change declared at once, as before), `epoch` (nothing breaks before the next epoch), or an object of kinds.')
