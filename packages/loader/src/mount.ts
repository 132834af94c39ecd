import type { Context, Fiber, Plugin } from 'cordis'
import { applyFailed, missingServices, notActive, type LoaderMessage } from './errors.js'

/** Cordis 4 `FiberState` values (a `const enum`, not usable under `isolatedModules`). */
export const FIBER_STATE = ['PENDING', 'LOADING', 'ACTIVE', 'FAILED', 'DISPOSED', 'UNLOADING'] as const
const ACTIVE = 2

/** What to mount: a plugin and its config, plus whatever the caller tracks with it. */
export interface MountRequest {
  plugin: Plugin
  config: unknown
}

/** A mounted request and its fiber. */
export interface Mounted<R extends MountRequest> {
  request: R
  fiber: Fiber
}

/** A request that did not end up active, and why (one line, with its code). */
export interface MountFailure<R extends MountRequest> extends LoaderMessage {
  request: R
}

/**
 * Mounts each request as its own child plugin of `ctx`, in order, awaiting each one. Once all are
 * mounted it waits until no fiber is still (re)loading (a service provided by a later entry starts an
 * earlier one), then reports every fiber that is not active: an `apply` that threw, or the services
 * it injects that no active plugin provides.
 */
export async function mountAll<R extends MountRequest>(ctx: Context, requests: readonly R[]): Promise<{ mounted: Mounted<R>[]; failures: MountFailure<R>[] }> {
  const mounted: Mounted<R>[] = []
  const failures: MountFailure<R>[] = []
  for (const request of requests) {
    let fiber: Fiber
    try {
      fiber = ctx.plugin(request.plugin, request.config)
    } catch (error) {
      failures.push({ request, ...applyFailed(error) })
      continue
    }
    mounted.push({ request, fiber })
    try {
      await fiber
    } catch {
      // Reported below, once everything has settled: a failure is read from the fiber itself.
    }
  }
  await settle(mounted.map((item) => item.fiber))
  for (const item of mounted) {
    const reason = await inactiveReason(item.fiber)
    if (reason) failures.push({ request: item.request, ...reason })
  }
  return { mounted, failures }
}

/** Waits until none of `fibers` is loading or unloading (bounded, in case plugins keep restarting). */
export async function settle(fibers: readonly Fiber[]): Promise<void> {
  for (let round = 0; round < 100; round++) {
    const busy = fibers.filter((fiber) => fiber.inertia)
    if (!busy.length) return
    await Promise.allSettled(busy.map((fiber) => fiber.await()))
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

/** Disposes mounted fibers, last first; a disposer that fails does not stop the others. */
export async function disposeAll(fibers: readonly Fiber[]): Promise<void> {
  for (const fiber of [...fibers].reverse()) {
    try {
      await fiber.dispose()
    } catch {
      // Cordis already logs disposer failures; unloading the rest matters more.
    }
  }
}
