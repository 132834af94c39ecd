/**
 * A preset's tool restriction, kept exact while tools come and go.
 *
 * `tools.restrict()` refuses names the scope does not know yet, and tool plugins may load before or
 * after the presets. Restricting by the configured names that are registered right now is exactly
 * the configured restriction over the tools that exist: an `allow` name with no tool allows nothing,
 * a `deny` name with no tool hides nothing. So the restriction is applied with the registered subset
 * and re-applied whenever a tool is registered or disposed (the new one before the old one goes, so
 * the scope is never unrestricted in between). This half lives in its own plugin, which injects
 * `tools`: presets that restrict nothing never need the tools service.
 * @module
 */
import type { Context } from 'cordis'
import { scopeOf, scopeChain } from 'dsh-scope'
import type {} from 'dsh-tools'

/** What the restriction plugin is given. */
export interface RestrictionOptions {
  /** The restriction as configured. */
  readonly allow?: readonly string[]
  readonly deny?: readonly string[]
  /** Told the configured names no registered tool answers, after every change. */
  readonly unresolved: (names: readonly string[]) => void
}

/**
 * A plugin (inject `tools`) that keeps a restriction in force in the scope of the context it is
 * loaded through.
 */
export const PresetRestriction = {
  name: 'dsh-presets:tools',
  inject: ['tools'],
  apply(ctx: Context, options: RestrictionOptions) {
    const scope = scopeOf(ctx)
    let applied: string | undefined
    let current: (() => void) | undefined
    const sync = () => {
      // What the preset's scope inherits (tools.restrict() filters only that; its own tools stay visible).
      const known = new Set(ctx.tools.view(scopeChain(ctx, scope)[1]).known)
      const allow = options.allow?.filter((name) => known.has(name))
      const deny = options.deny?.filter((name) => known.has(name))
      const signature = JSON.stringify([allow, deny])
      if (signature === applied) return
      const restricts = allow !== undefined || !!deny?.length
      const next = restricts ? ctx.tools.restrict({ allow, deny }) : undefined
      current?.()
      current = next
      applied = signature
      options.unresolved([...options.allow ?? [], ...options.deny ?? []].filter((name) => !known.has(name)))
    }
    sync()
    // Only tool changes matter; restriction changes (ours included) cannot change what is known.
    ctx.on('tools/change', (event) => {
      if (event.kind === 'tool') sync()
    })
  },
}
