/**
 * Changing a loaded deployment one row at a time, the way a live Cordis deployment does it: a row's
 * config is replaced through `fiber.update(config)` (the plugin may apply it in place through an
 * `internal/update` listener; otherwise Cordis restarts that fiber alone, and the plugins that inject
 * a service it provides restart with it), a row is added by resolving and mounting it like a file
 * row, after the others, and a row is removed by disposing its fiber. Every other row keeps its fiber
 * and registrations. Problems are thrown as one `DeploymentError` naming the row and the key.
 * @module
 */
import type { Context, Fiber, Plugin } from 'cordis'
import { strayKeys } from './config-keys.js'
import {
  applyFailed, configNotStandard, deploymentDisposed, describeError, describeValue, duplicateId, emptyString, importFailed, invalidConfig,
  missingName, noPlugin, PLUGIN_LOGGER_REASON, protoKey, ROW_KEYS, rowDisturbed, rowNotObject, typeScriptUnsupported, unknownConfigKey,
  unknownRow, unknownRowKey, unsupportedPlugin, wrongType, type LoaderMessage,
} from './errors.js'
import { inactiveReason, mountAll, settle } from './mount.js'
import { DeploymentError, rowLabel, type Problem, type RowRef } from './problems.js'
import { exportNames, importModule, pluginOf, resolvePluginModule } from './resolve.js'
import { isStandardSchema, validate } from './schema.js'
import { displayPath, formatKeyPath, type DeploymentSource, type KeyPath } from './source.js'
import type { DeploymentEntry, DisabledEntry, EntryInit, RowInput } from './types.js'

const ACTIVE = 2

/** The live state of a deployment that the row changes work on (owned by `createDeployment`). */
export interface RowState {
  /** The loader's context: added rows become its child plugins, like file rows. */
  readonly ctx: Context
  readonly source: Pick<DeploymentSource, 'file' | 'display'>
  /** The mounted rows, in order (changed in place). */
  readonly entries: DeploymentEntry[]
  readonly disabled: DisabledEntry[]
  /** Whether the deployment has been unloaded. */
  disposed(): boolean
  /** Builds the entry of a mounted row. */
  makeEntry(init: Omit<EntryInit, 'source' | 'disposeMs'>): DeploymentEntry
  /** Records a row's new config (as written) on its entry. */
  setConfig(entry: DeploymentEntry, config: unknown): void
}

/**
 * Replaces the config of the mounted row `id`. The config is checked like a file row's (unknown keys,
 * `__proto__`, the plugin's schema) before anything changes; then `fiber.update(config)` re-applies it.
 * If the row (or a row that injects a service it provides) does not come back active, the previous
 * config is restored and the problems are thrown.
 */
export async function reconfigureRow(state: RowState, id: string, config: unknown): Promise<DeploymentEntry> {
  assertLive(state)
  const entry = mountedRow(state, id)
  const ref: RowRef = { index: entry.index, id: entry.id }
  const problems = await checkConfig(state, ref, entry.plugin, config)
  if (problems.length) throw new DeploymentError(problems)
  const previous = entry.config
  const before = activeFibers(state)
  const failure = await update(entry.fiber, config)
  const found = failure ? [problemOf(state, ref, failure)] : await afterChange(state, entry, before, `reconfiguring ${rowLabel(ref)}`)
  if (found.length) {
    await update(entry.fiber, previous)
    await settle(state.entries.map((item) => item.fiber))
    throw new DeploymentError(found)
  }
  state.setConfig(entry, config)
  return entry
}

/**
 * Adds a row after the others: its shape is checked like a file row's (`name`, `id`, `config`,
 * `disabled`), its name resolved from the deployment file's folder, its config checked, and it is
 * mounted as a child plugin of the loader's context. Resolves to its entry (`undefined` for a row
 * with `disabled: true`, which is only recorded). A row that does not become active is unloaded again.
 */
export async function addRow(state: RowState, input: RowInput): Promise<DeploymentEntry | undefined> {
  assertLive(state)
  const index = nextIndex(state)
  const shape = checkShape(state, index, input)
  if (shape.problems.length) throw new DeploymentError(shape.problems)
  const { name, id } = shape
  const ref: RowRef = { index, id }
  if (input.disabled === true) {
    state.disabled.push({ index, id, name })
    return undefined
  }
  const resolved = await resolveRow(state, ref, name)
  if (!resolved.ok) throw new DeploymentError([resolved.problem])
  const problems = await checkConfig(state, ref, resolved.plugin, input.config)
  if (problems.length) throw new DeploymentError(problems)
  const before = activeFibers(state)
  const { mounted, failures } = await mountAll(state.ctx, [{ plugin: resolved.plugin, config: input.config }])
  const fiber = mounted[0]?.fiber
  const found = failures.map((failure) => problemOf(state, ref, failure))
  if (!found.length && fiber) {
    const entry = state.makeEntry({ index, id, name, path: resolved.path, plugin: resolved.plugin, config: input.config, fiber })
    state.entries.push(entry)
    found.push(...await afterChange(state, entry, before, `adding ${rowLabel(ref)}`))
    if (!found.length) return entry
    state.entries.pop()
  }
  await fiber?.dispose()
  await settle(state.entries.map((item) => item.fiber))
  throw new DeploymentError(found)
}

/**
 * Removes the mounted row `id`: its fiber is disposed (everything it registered goes) and it leaves
 * `entries`. When that stops another row (it injected a service the removed row provided), the
 * removal stands and those rows are reported in the thrown `DeploymentError`.
 */
export async function removeRow(state: RowState, id: string): Promise<void> {
  assertLive(state)
  const entry = mountedRow(state, id)
  const before = activeFibers(state)
  before.delete(entry.fiber)
  await entry.dispose()
  state.entries.splice(state.entries.indexOf(entry), 1)
  const found = await afterChange(state, undefined, before, `removing ${rowLabel({ index: entry.index, id: entry.id })}`)
  if (found.length) throw new DeploymentError(found)
}

function assertLive(state: RowState): void {
  if (state.disposed()) throw new DeploymentError([fileProblem(state, deploymentDisposed())])
}

function mountedRow(state: RowState, id: string): DeploymentEntry {
  const entry = typeof id === 'string' ? state.entries.find((candidate) => candidate.id === id) : undefined
  if (entry) return entry
  const disabled = state.disabled.some((row) => row.id === id)
  throw new DeploymentError([fileProblem(state, unknownRow(String(id), state.entries.map((item) => item.id), disabled))])
}

/** A problem of the deployment as a whole (no row). */
function fileProblem(state: RowState, message: LoaderMessage): Problem {
  return { file: state.source.display, code: message.code, message: message.message }
}

/** The problem of row `ref`, named as the loader names it: `plugins[2] (id "x")` and the key path. */
function problemOf(state: RowState, ref: RowRef, message: LoaderMessage, key?: KeyPath): Problem {
  const problem: Problem = { file: state.source.display, entry: rowLabel(ref), code: message.code, message: message.message }
  if (ref.id !== undefined) problem.id = ref.id
  if (key?.length) problem.key = formatKeyPath(['plugins', ref.index, ...key])
  return problem
}

/** The config checks of a file row: stray keys, a Standard Schema, the schema's issues (each with its key). */
async function checkConfig(state: RowState, ref: RowRef, plugin: Plugin, config: unknown): Promise<Problem[]> {
  const schema = (plugin as { Config?: unknown }).Config
  const problems: Problem[] = []
  for (const stray of strayKeys(schema, config)) {
    const message = stray.allowed ? unknownConfigKey(formatKeyPath(stray.path), stray.allowed) : protoKey()
    problems.push(problemOf(state, ref, message, ['config', ...stray.path]))
  }
  if (schema === undefined || schema === null) return problems
  if (!isStandardSchema(schema)) return [...problems, problemOf(state, ref, configNotStandard(), ['config'])]
  const result = await validate(schema, config)
  if (!result.ok) {
    for (const failure of result.failures) problems.push(problemOf(state, ref, invalidConfig(failure.message, failure.code), ['config', ...failure.path]))
  }
  return problems
}

/** Runs `fiber.update(config)` and waits for it; an error thrown or left on the fiber is returned. */
async function update(fiber: Fiber, config: unknown): Promise<LoaderMessage | undefined> {
  try {
    await fiber.update(config)
  } catch (error) {
    return applyFailed(error)
  }
  return undefined
}

function activeFibers(state: RowState): Set<Fiber> {
  return new Set(state.entries.filter((entry) => entry.state === ACTIVE).map((entry) => entry.fiber))
}

/**
 * Once every fiber has settled: why the changed row is inactive, and which rows that were active
 * before the change are not any more (they inject a service the change restarted or removed).
 */
async function afterChange(state: RowState, changed: DeploymentEntry | undefined, before: ReadonlySet<Fiber>, change: string): Promise<Problem[]> {
  await settle(state.entries.map((entry) => entry.fiber))
  const problems: Problem[] = []
  for (const entry of state.entries) {
    const ref = { index: entry.index, id: entry.id }
    if (entry === changed) {
      const reason = await inactiveReason(entry.fiber)
      if (reason) problems.push(problemOf(state, ref, reason))
    } else if (before.has(entry.fiber) && entry.state !== ACTIVE) {
      const reason = await inactiveReason(entry.fiber)
      problems.push(problemOf(state, ref, rowDisturbed(change, reason?.message ?? 'it is no longer active')))
    }
  }
  return problems
}

function nextIndex(state: RowState): number {
  return Math.max(-1, ...state.entries.map((entry) => entry.index), ...state.disabled.map((row) => row.index)) + 1
}

/** The shape checks of a file row, on a plain object: known keys, `name` and `id` non-empty strings, a unique id. */
function checkShape(state: RowState, index: number, input: unknown): { problems: Problem[]; name: string; id: string } {
  const fail = (message: LoaderMessage, key?: KeyPath, id?: string) => problemOf(state, { index, id }, message, key)
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return { problems: [fail(rowNotObject(describeValue(input)))], name: '', id: '' }
  const row = input as Record<string, unknown>
  const id = typeof row.id === 'string' && row.id ? row.id : typeof row.name === 'string' && row.name && row.id === undefined ? row.name : undefined
  const problems: Problem[] = []
  for (const key of Object.keys(row)) {
    if (!(ROW_KEYS as readonly string[]).includes(key)) problems.push(fail(unknownRowKey(key), [key], id))
  }
  for (const key of ['name', 'id'] as const) {
    const value = row[key]
    if (value === undefined) {
      if (key === 'name') problems.push(fail(missingName(), [], id))
    } else if (typeof value !== 'string') problems.push(fail(wrongType(key, 'a string', describeValue(value)), [key], id))
    else if (!value.trim()) problems.push(fail(emptyString(key), [key], id))
  }
  if (row.disabled !== undefined && typeof row.disabled !== 'boolean') {
    problems.push(fail(wrongType('disabled', 'true or false', describeValue(row.disabled)), ['disabled'], id))
  }
  const other = id === undefined ? undefined : [...state.entries, ...state.disabled].find((item) => item.id === id)
  if (other && id !== undefined) problems.push(fail(duplicateId(id, rowLabel({ index: other.index, id: other.id }), undefined), [row.id === undefined ? 'name' : 'id'], id))
  return { problems, name: String(row.name ?? ''), id: id ?? '' }
}

/** Resolves and imports a row's plugin, like the loader does for a file row. */
async function resolveRow(state: RowState, ref: RowRef, name: string): Promise<{ ok: true; path: string; plugin: Plugin } | { ok: false; problem: Problem }> {
  const fail = (message: LoaderMessage) => ({ ok: false as const, problem: problemOf(state, ref, message, ['name']) })
  if (name === '@cordisjs/plugin-logger') return fail(unsupportedPlugin(name, PLUGIN_LOGGER_REASON))
  const resolved = resolvePluginModule(name, state.source.file)
  if (!resolved.ok) return fail(resolved)
  const imported = await importModule(resolved.path, { deploymentFile: state.source.file })
  if (!imported.ok) {
    const { typeScript } = imported
    return fail(typeScript
      ? typeScriptUnsupported(name, displayPath(resolved.path), typeScript.tried, typeScript.reason)
      : importFailed(name, displayPath(resolved.path), describeError(imported.error)))
  }
  const plugin = pluginOf(imported.module)
  if (!plugin) return fail(noPlugin(name, exportNames(imported.module)))
  return { ok: true, path: resolved.path, plugin }
}
