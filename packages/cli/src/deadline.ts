/**
 * The bound on one assembly (one `agent.step()` or `systemPrompt.assemble()`) of a command: an abort
 * signal given to the assembly, aborted by a timer that keeps the process alive until it fires (Node's
 * own `AbortSignal.timeout()` is unref'd, so a listener that never settles would let the process end
 * first, with exit 13 and nothing said). The reason it aborts with names the target and the
 * `system-prompt/assemble` listeners that could be holding it.
 * @module
 */
import type { BootedDeployment as Booted } from 'dsh-boot'
import { ASSEMBLE_EVENT, waitingListener } from 'dsh-system-prompt'
import { listenersFor, type ScopeKey } from 'dsh-scope'
import { assemblyTimeout } from './errors.js'
import { activeGuard } from './guard.js'
import { ownersOf } from './owners.js'

/** How long one assembly of a command may take by default, in milliseconds (`--timeout` changes it). */
export const DEFAULT_ASSEMBLY_TIMEOUT = 10_000

/**
 * Runs `assemble` with a signal that aborts after the command's bound (`--timeout`, else
 * {@link DEFAULT_ASSEMBLY_TIMEOUT}) with the `CLI_ASSEMBLY_TIMEOUT`
 * error for `label` (`agent "main"`, `the deployment`). Text, variable and tool providers are
 * synchronous, so what an assembly can wait for is its listeners: the error names the plugins of those
 * admitted to it (the one when there is one).
 */
export async function bounded<T>(booted: Booted, label: string, scope: ScopeKey | undefined, assemble: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const guard = activeGuard()
  // An assembly runs once the deployment has loaded: what happens now is no longer the last row's doing.
  guard?.loaded()
  const ms = guard?.timeoutMs ?? DEFAULT_ASSEMBLY_TIMEOUT
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(timeoutFor(booted, label, scope, ms, waitingListener(controller.signal))), ms)
  try {
    return await assemble(controller.signal)
  } finally {
    clearTimeout(timer)
  }
}

function timeoutFor(booted: Booted, label: string, scope: ScopeKey | undefined, ms: number, holder: string | undefined) {
  let owners: string[] = holder === undefined ? [] : [holder]
  try {
    if (holder === undefined) owners = [...new Set(listenersFor(booted.ctx, ASSEMBLE_EVENT, scope).map((listener) => listener.owner))]
  } catch {
    // Naming the listeners is a courtesy: the timeout is reported either way.
  }
  const names = owners.map((owner) => ownersOf(booted).plugin(owner))
  return assemblyTimeout(label, booted.deployment.displayFile, ms, names, owners.length === 1 ? owners[0] : undefined)
}
