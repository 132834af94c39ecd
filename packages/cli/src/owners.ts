/**
 * Names for where a registration came from, as a user of the deployment file knows them: the owner as
 * the row id of the plugin that registered it, and the layer as `global`, `preset:<id>` or `agent:<id>`.
 * @module
 */
import type { Context } from 'cordis'
import type { BootedDeployment } from 'dsh-boot'
import type { Deployment, DeploymentEntry } from 'dsh-loader'
import { scopeLabel, type ScopeKey } from 'dsh-scope'

/** The layer name of the global layer. */
export const GLOBAL_LAYER = 'global'

/** The owner shown for an entry that a `system-prompt/assemble` listener added (it has no owner). */
export const LISTENER_OWNER = '(assemble listener)'

/** Maps registry owners (fiber names, scope labels) and scope keys to the names the CLI shows. */
export class Owners {
  private readonly byFiber = new Map<string, DeploymentEntry[]>()

  constructor(private readonly ctx: Context, deployment: Pick<Deployment<any>, 'entries'>) {
    for (const entry of deployment.entries) {
      const name = entry.fiber.name
      const list = this.byFiber.get(name)
      if (list) list.push(entry)
      else this.byFiber.set(name, [entry])
    }
  }

  /**
   * The row that registered as `owner` (a fiber name), when exactly one row has that plugin; scope
   * owners (`preset:x`, `agent:y`) and plugins mounted twice have none.
   */
  entry(owner: string | undefined): DeploymentEntry | undefined {
    const rows = owner === undefined ? undefined : this.byFiber.get(owner)
    return rows?.length === 1 ? rows[0] : undefined
  }

  /**
   * The owner as shown: the row id of the plugin (`dsh-plugin-shell`), else the registry's own name for
   * it (a scope label such as `preset:reviewer`, or a plugin's name), else the listener marker.
   */
  plugin(owner: string | undefined): string {
    if (owner === undefined) return LISTENER_OWNER
    const rows = this.byFiber.get(owner)
    if (!rows?.length) return owner
    return rows.length === 1 ? rows[0].id : `${owner} (rows ${rows.map((row) => row.id).join(', ')})`
  }

  /** The layer of a scope key: `global` without one, else the scope's label (`agent:main`, `preset:reviewer`). */
  layer(scope: ScopeKey | undefined): string {
    if (scope === undefined) return GLOBAL_LAYER
    return scopeLabel(this.ctx, scope) ?? 'scope'
  }

  /** `owner, layer` in one phrase, for messages: `dsh-plugin-shell, global` (`preset:x` once when both are). */
  describe(origin: { owner?: string; scope?: ScopeKey }): string {
    return originPhrase(this.plugin(origin.owner), this.layer(origin.scope))
  }
}

const OWNERS = new WeakMap<BootedDeployment, Owners>()

/** The names of a booted deployment's owners and layers, made once per boot. */
export function ownersOf(booted: BootedDeployment): Owners {
  let owners = OWNERS.get(booted)
  if (!owners) OWNERS.set(booted, owners = new Owners(booted.ctx, booted.deployment))
  return owners
}

/** `owner, layer`, or the owner alone when the layer says the same (a scope's own registrations). */
export function originPhrase(owner: string, layer: string | undefined): string {
  return !layer || layer === owner ? owner : `${owner}, ${layer}`
}
