import type { Context, Fiber, FiberState, Plugin } from 'cordis'
import { disposeRows } from './mount.js'
import { DEFAULT_TIMEOUTS } from './timeouts.js'
import { addRow, reconfigureRow, removeRow, type RowState } from './reconfigure.js'
import type { DeploymentSource } from './source.js'
import type { Deployment, DeploymentEntry, DisabledEntry, EntryInit, SectionSchemas, SectionValues } from './types.js'

export type { EntryInit } from './types.js'

const DISPOSED = 4


const inits = new WeakMap<DeploymentEntry, EntryInit>()

/** Builds the `DeploymentEntry` of a mounted row. */
export function createEntry(init: EntryInit): DeploymentEntry {
  init = { ...init }
  const entry: DeploymentEntry = {
    index: init.index,
    id: init.id,
    name: init.name,
    path: init.path,
    plugin: init.plugin,
    // Read through: `reconfigure()` replaces it (see `setEntryConfig`).
    get config() {
      return init.config
    },
    fiber: init.fiber,
    get state(): FiberState {
      // Cordis leaves `state` stale when a fiber that was waiting for a service is disposed.
      return (init.fiber.uid === null ? DISPOSED : init.fiber.state) as FiberState
    },
    async dispose() {
      await disposeRows(init.source, [{ fiber: init.fiber, row: init }], init.disposeMs)
    },
  }
  inits.set(entry, init)
  return entry
}

/** Records the config (as written) a row was reconfigured with on its entry. */
function setEntryConfig(entry: DeploymentEntry, config: unknown): void {
  const init = inits.get(entry)
  if (init) init.config = config
}

/** Builds the `Deployment` returned by a successful load. */
export function createDeployment<S extends SectionSchemas>(
  source: DeploymentSource,
  entries: readonly DeploymentEntry[],
  disabled: readonly DisabledEntry[],
  sections: SectionValues<S>,
  ctx: Context,
  disposeMs: number = DEFAULT_TIMEOUTS.dispose,
): Deployment<S> {
  let disposing: Promise<void> | undefined
  // Live lists: `addRow()` and `removeRow()` change them in place (see reconfigure.ts).
  const rows: RowState = {
    ctx, source, entries: [...entries], disabled: [...disabled],
    disposed: () => disposing !== undefined,
    makeEntry: (init) => createEntry({ ...init, source, disposeMs }),
    setConfig: setEntryConfig,
  }
  return {
    file: source.file,
    displayFile: source.display,
    get entries() {
      return rows.entries
    },
    get disabled() {
      return rows.disabled
    },
    sections,
    entry: (id) => rows.entries.find((entry) => entry.id === id),
    locate: (path) => source.locate(path),
    reconfigure: (id, config) => reconfigureRow(rows, id, config),
    addRow: (row) => addRow(rows, row),
    removeRow: (id) => removeRow(rows, id),
    dispose() {
      disposing ??= disposeRows(source, rows.entries.map((entry) => ({ fiber: entry.fiber, row: entry })), disposeMs)
      return disposing
    },
  }
}
