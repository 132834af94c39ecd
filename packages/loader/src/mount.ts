import type { Context, Fiber, Plugin } from 'cordis'
import { applyFailed, applyTimeout, disposeTimeout, missingServices, notActive, type LoaderMessage } from './errors.js'
import { ProblemList, type RowRef } from './problems.js'
import type { DeploymentSource } from './source.js'
import { DEFAULT_TIMEOUTS, within } from './timeouts.js'

/** Cordis 4 `FiberState` values (a `const enum`, not usable under `isolatedModules`). */
export const FIBER_STATE = ['PENDING', 'LOADING', 'ACTIVE', 'FAILED', 'DISPOSED', 'UNLOADING'] as const
const ACTIVE = 2

/** What to mount: a plugin and its config, plus whatever the caller tracks with it. */
export interface MountRequest {
  plugin: Plugin
  config: unknown
}

/** A mounted request and its fiber; `hung` when its `apply` did not settle in time (it cannot be waited for). */
export interface Mounted<R extends MountRequest> {
  request: R
  fiber: Fiber
  hung?: boolean
}

/** A request that did not end up active, and why (one line, with its code). */
export interface MountFailure<R extends MountRequest> extends LoaderMessage {
  request: R
}

/**
 * Mounts each request as its own child plugin of `ctx`, in order, awaiting each one at most
 * `applyMs`. Once all are mounted it waits (again at most `applyMs`) until no fiber is still
 * (re)loading (a service provided by a later entry starts an earlier one), then reports every fiber that
 * is not active: an `apply` that threw or never settled, or the services it injects that no active
 * plugin provides. `onApply` is told before each request is mounted.
 */
export async function mountAll<R extends MountRequest>(
  ctx: Context, requests: readonly R[], applyMs: number = DEFAULT_TIMEOUTS.apply, onApply?: (request: R) => void,
): Promise<{ mounted: Mounted<R>[]; failures: MountFailure<R>[] }> {
  const mounted: Mounted<R>[] = []
  const failures: MountFailure<R>[] = []
  for (const request of requests) {
    onApply?.(request)
    let fiber: Fiber
    try {
      fiber = ctx.plugin(request.plugin, request.config)
    } catch (error) {
      failures.push({ request, ...applyFailed(error) })
      continue
    }
    const item: Mounted<R> = { request, fiber }
    mounted.push(item)
    // A failure is read from the fiber itself, below, once everything has settled.
    if (!(await within(fiber.await(), applyMs)).settled) item.hung = true
  }
  await settle(mounted.filter((item) => !item.hung).map((item) => item.fiber), applyMs)
  for (const item of mounted) {
    // A fiber still loading now has an apply (its own, or a restart) that has not settled.
    if (!item.hung && item.fiber.inertia) item.hung = true
    const reason = item.hung ? applyTimeout(applyMs) : await inactiveReason(item.fiber)
    if (reason) failures.push({ request: item.request, ...reason })
  }
  return { mounted, failures }
}

/**
 * Waits until none of `fibers` is loading or unloading (bounded, in case plugins keep restarting),
 * at most `ms` in all.
 */
export async function settle(fibers: readonly Fiber[], ms: number = DEFAULT_TIMEOUTS.apply): Promise<void> {
  const deadline = Date.now() + ms
  for (let round = 0; round < 100; round++) {
    const busy = fibers.filter((fiber) => fiber.inertia)
    const left = deadline - Date.now()
    if (!busy.length || left <= 0) return
    await within(Promise.allSettled(busy.map((fiber) => fiber.await())), left)
  }
}

/** Why a settled fiber is not active, or `undefined` when it is. */
export async function inactiveReason(fiber: Fiber): Promise<LoaderMessage | undefined> {
  try {
    await fiber.await()
  } catch (error) {
    return applyFailed(error)
  }
  if (fiber.state === ACTIVE) return undefined
  const missing = Object.keys(fiber.inject).filter((name) => fiber.ctx.get(name) == null)
  if (missing.length) return missingServices(missing)
  return notActive(FIBER_STATE[fiber.state] ?? String(fiber.state))
}

/** A fiber to dispose and the row it belongs to (for the problem when it does not finish in time). */
export interface DisposeTarget {
  fiber: Fiber
  row: RowRef
  /** Its `apply` never settled: Cordis cannot unload it before it does, so it is not waited for. */
  hung?: boolean
}

/**
 * Disposes `targets`, last first, each waited for at most `ms`; a disposer that fails does not stop
 * the others (Cordis logs it). Resolves to the rows whose disposal did not finish in time, as problems.
 */
export async function disposeAll(source: DeploymentSource, targets: readonly DisposeTarget[], ms: number = DEFAULT_TIMEOUTS.dispose): Promise<ProblemList> {
  const problems = new ProblemList(source)
  for (const { fiber, row, hung } of [...targets].reverse()) {
    const disposing = Promise.resolve().then(() => fiber.dispose())
    if (hung) {
      disposing.catch(() => {})
      continue
    }
    if (!(await within(disposing, ms)).settled) problems.add({ ...disposeTimeout(ms), row, path: ['plugins', row.index] })
  }
  return problems
}

/** {@link disposeAll}, rejecting with a `DeploymentError` naming every row whose disposal did not finish in time. */
export async function disposeRows(source: DeploymentSource, targets: readonly DisposeTarget[], ms: number = DEFAULT_TIMEOUTS.dispose): Promise<void> {
  const problems = await disposeAll(source, targets, ms)
  if (problems.size) throw problems.error()
}

