import type { Fiber, FiberState, Plugin } from 'cordis'
import { disposeRows } from './mount.js'
import type { DeploymentSource } from './source.js'
import type { Deployment, DeploymentEntry, DisabledEntry, SectionSchemas, SectionValues } from './types.js'

const DISPOSED = 4

/** What the loader knows about a mounted row when it builds the {@link Deployment}. */
export interface EntryInit {
  index: number
  id: string
  name: string
  path: string
  plugin: Plugin
  config: unknown
  fiber: Fiber
  /** The file, and how long its disposal may take (a row that takes longer is a `DeploymentError`). */
  source: DeploymentSource
  disposeMs: number
}

/** Builds the `DeploymentEntry` of a mounted row. */
export function createEntry(init: EntryInit): DeploymentEntry {
  return {
    index: init.index,
    id: init.id,
    name: init.name,
    path: init.path,
    plugin: init.plugin,
    config: init.config,
    fiber: init.fiber,
    get state(): FiberState {
      // Cordis leaves `state` stale when a fiber that was waiting for a service is disposed.
      return (init.fiber.uid === null ? DISPOSED : init.fiber.state) as FiberState
    },
    async dispose() {
      await disposeRows(init.source, [{ fiber: init.fiber, row: init }], init.disposeMs)
    },
  }
}

/** Builds the `Deployment` returned by a successful load. */
export function createDeployment<S extends SectionSchemas>(
  source: DeploymentSource,
  entries: readonly DeploymentEntry[],
  disabled: readonly DisabledEntry[],
  sections: SectionValues<S>,
  disposeMs?: number,
): Deployment<S> {
  const byId = new Map(entries.map((entry) => [entry.id, entry]))
  let disposing: Promise<void> | undefined
  return {
    file: source.file,
    displayFile: source.display,
    entries,
    disabled,
    sections,
    entry: (id) => byId.get(id),
    locate: (path) => source.locate(path),
    dispose() {
      disposing ??= disposeRows(source, entries.map((entry) => ({ fiber: entry.fiber, row: entry })), disposeMs)
      return disposing
    },
  }
}
