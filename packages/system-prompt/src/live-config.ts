/**
 * The service's own sections (identity line, persona prefix and suffix) and how a replaced config
 * reaches them. Cordis replaces a plugin's config with `fiber.update(config)`, which runs the fiber's
 * `internal/update` listeners before it restarts the fiber. A restart of `systemPrompt` restarts every
 * plugin that injects it (and disposes every agent with its conversation), so a change of these texts
 * alone is applied in place: the changed section is registered again with its new text, and nothing
 * else moves. Any other key (`includeHarnessIdentity`, `includeRuntimeContext`, `toolOrder`) still
 * restarts the service, as Cordis does for any plugin.
 * @module
 */
import type { Context, Fiber } from 'cordis'
import type { ResolvedConfig } from './config.js'
import {
  IDENTITY_SECTION, PERSONA_ORDER, PERSONA_SECTION, PERSONA_SUFFIX_ORDER, PERSONA_SUFFIX_SECTION, SECTION_PLACEMENTS,
} from './placements.js'
import type { PromptSection } from './types.js'

/** The config keys applied in place: the texts of the service's own sections. */
export const LIVE_TEXT_KEYS = ['identity', 'persona', 'personaSuffix'] as const

type TextKey = (typeof LIVE_TEXT_KEYS)[number]

/** What registers one of the service's sections in its own layer (`PromptCore.section`, bound to the service's context). */
export type RegisterSection = (section: PromptSection) => () => void

/**
 * Registers the identity line (unless turned off), the persona prefix and the persona suffix, and an
 * `internal/update` listener on the service's fiber that applies a new text of any of them in place.
 * `config` is the service's resolved config: it is updated in place, so `systemPrompt.config` stays true.
 */
export function registerOwnSections(ctx: Context, config: ResolvedConfig, register: RegisterSection): void {
  const disposers = new Map<TextKey, () => void>()
  const add = (key: TextKey) => {
    if (key === 'identity' && !config.includeHarnessIdentity) return
    disposers.set(key, register(sectionOf(key, config[key])))
  }
  for (const key of LIVE_TEXT_KEYS) add(key)
  ctx.on('internal/update', function (this: Fiber, next: ResolvedConfig, _noSave: boolean, restart: () => unknown) {
    const keys = new Set([...Object.keys(config), ...Object.keys(next)]) as Set<keyof ResolvedConfig>
    const moved = [...keys].filter((key) => !sameValue(config[key], next[key]))
    if (!moved.every((key) => (LIVE_TEXT_KEYS as readonly string[]).includes(key))) return restart() as void
    for (const key of moved as TextKey[]) {
      disposers.get(key)?.()
      disposers.delete(key)
      config[key] = next[key]
      add(key)
    }
    this.config = next
  })
}

function sectionOf(key: TextKey, text: string): PromptSection {
  if (key === 'identity') return { name: IDENTITY_SECTION, order: SECTION_PLACEMENTS[IDENTITY_SECTION], text, interpolate: false }
  if (key === 'persona') return { name: PERSONA_SECTION, order: PERSONA_ORDER, text }
  return { name: PERSONA_SUFFIX_SECTION, order: PERSONA_SUFFIX_ORDER, text }
}

/** Equal as config values: the same primitive, or lists of the same strings (`toolOrder`). */
function sameValue(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, index) => item === b[index])
  return a === b
}
