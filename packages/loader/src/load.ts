import type { Context, Plugin } from 'cordis'
import { isNode, isScalar, type Document, type Node } from 'yaml'
import { createDeployment, createEntry } from './deployment.js'
import { substituteTree, type Environment } from './env.js'
import {
  checkProblem, codeOf, configNotStandard, crLineEndings, describeError, duplicateId, hookFailed, importFailed, importTimeout, invalidTimeout,
  loadedListenerFailed, noPlugin, invalidConfig, invalidSection, invalidUtf8, PLUGIN_LOGGER_REASON, protoKey, unknownConfigKey, unknownSectionKey,
  invalidLimit, typeScriptUnsupported, unreadable, unsupportedPlugin, yamlSyntax, yamlTooDeep, yamlValue, type LoaderMessage,
} from './errors.js'
import { isStackExhaustion, MAX_YAML_DEPTH, tooDeep } from './depth.js'
import { resolveTimeouts, within, type Timeouts } from './timeouts.js'
import { strayKeys } from './config-keys.js'
import { readLayout, type Layout, type Row } from './layout.js'
import { disposeAll, mountAll } from './mount.js'
import { DeploymentError, ProblemList, rowLabel } from './problems.js'
import { exportNames, importModule, pluginOf, resolvePluginModule } from './resolve.js'
import { isStandardSchema, validate } from './schema.js'
import { DeploymentSource, displayPath, formatKeyPath, parseKeyPath, type KeyPath, type Position } from './source.js'
import { DEFAULT_MAX_DOUBLE_QUOTED_CHARS, DEFAULT_MAX_YAML_TOKENS, type YamlLimits } from './yaml-limits.js'
import type { AfterLoadHook, Deployment, LoadOptions, ProblemInput, RowActivity, SectionSchemas, SectionValues } from './types.js'

/** A row ready to mount. */
interface Request {
  row: Row & { id: string }
  name: string
  path: string
  plugin: Plugin
  config: unknown
}

/**
 * Loads a YAML deployment into `ctx`: every enabled `plugins:` row becomes its own child plugin of
 * `ctx`, in file order. Every problem (YAML syntax, shape, substitution, resolution, config, `apply`,
 * missing services, `afterLoad` checks) is collected and thrown together as one {@link DeploymentError};
 * a failed load leaves nothing mounted. A clean load emits `deployment/loaded` (with the deployment)
 * before it resolves, so services can check what only the whole deployment shows (the `systemPrompt`
 * service warns about a `toolOrder` naming an unregistered tool). Every wait on a row (its import, its
 * `apply`, its disposal) is bounded by `options.timeouts`: one that runs out is that row's problem. A
 * file nested deeper than {@link MAX_YAML_DEPTH} levels is refused before any recursive walk; one with
 * more YAML tokens or double-quoted text than `maxYamlTokens` and `maxDoubleQuotedChars` allow, before
 * it is parsed (so the parse holds at most about ten times the default size limit).
 */
export async function loadDeployment<S extends SectionSchemas = {}>(ctx: Context, file: string, options: LoadOptions<S> = {}): Promise<Deployment<S>> {
  ctx.fiber.assertActive()
  const timeouts = checkTimeouts(options.timeouts)
  const limits = checkLimits(options)
  const source = await readSource(file, options.maxFileBytes, limits)
  const problems = new ProblemList(source)
  if (source.invalidUtf8) {
    problems.add({ ...invalidUtf8(source.invalidUtf8.byte), position: source.positionOf(source.invalidUtf8.offset) })
    throw problems.error()
  }
  if (source.doc.errors.length) {
    // A file with CR-only line endings parses as one long line: say that once instead of its echoes.
    const exhausted = source.doc.errors.find(isStackExhaustion)
    if (source.crOnly) problems.add(crLineEndings())
    else if (exhausted) problems.add({ ...yamlTooDeep(MAX_YAML_DEPTH), position: source.positionOf(exhausted.pos[0]) })
    else for (const error of source.doc.errors) problems.add({ ...yamlSyntax(error.message), position: source.positionOf(error.pos[0]) })
    throw problems.error()
  }
  const deep = tooDeep(source.doc)
  if (deep) {
    problems.add({ ...yamlTooDeep(MAX_YAML_DEPTH), node: deep })
    throw problems.error()
  }

  const schemas = (options.sections ?? {}) as S
  const layout = readLayout(source, Object.keys(schemas), problems)
  substitute(layout, options.env ?? process.env, problems, source.doc)
  checkIds(layout.rows, source, problems)
  const sections = await readSections(source, layout, schemas, problems)
  const tell = (phase: RowActivity['phase'], row: Request['row'], name: string, path: string) => {
    try {
      options.onRow?.({ phase, index: row.index, id: row.id, name, path, entry: rowLabel(row), line: source.positionOfNode(row.node)?.line })
    } catch {
      // A watcher that throws must not change the load.
    }
  }
  const requests = await resolveRows(source, layout.rows, problems, { tsx: options.tsx, importMs: timeouts.import, tell })
  if (problems.size) throw problems.error()

  const { mounted, failures } = await mountAll(ctx, requests, timeouts.apply, (request) => tell('apply', request.row, request.name, request.path))
  const unload = async () => {
    const left = await disposeAll(source, mounted.map(({ request, fiber, hung }) => ({ fiber, row: request.row, hung })), timeouts.dispose)
    return left.problems()
  }
  try {
    for (const { request, ...failure } of failures) problems.add({ ...failure, row: request.row, node: request.row.node })
    const entries = mounted.map(({ request, fiber }) => createEntry({
      index: request.row.index, id: request.row.id, name: request.name, path: request.path, plugin: request.plugin, config: request.config, fiber,
      source, disposeMs: timeouts.dispose,
    }))
    const disabled = layout.rows.filter((row) => row.disabled).map((row) => ({ index: row.index, id: row.id ?? '', name: stringOf(row.nameNode) ?? '' }))
    const deployment = createDeployment<S>(source, entries, disabled, sections, ctx, timeouts.dispose)
    // The checks run only on a clean load: against a partial one they would report follow-on problems.
    if (!problems.size) await runHooks(ctx, deployment, options.afterLoad, layout.rows, problems)
    if (!problems.size) announceLoaded(ctx, deployment, problems)
    if (!problems.size) return deployment
  } catch (error) {
    await unload()
    throw error
  }
  const leftover = await unload()
  // A row that would not unload is one more problem of the failed load.
  throw new DeploymentError([...problems.problems(), ...leftover])
}

/** The bounds of this load, each checked to be a positive number of milliseconds. */
function checkTimeouts(timeouts: Timeouts | undefined): Required<Timeouts> {
  for (const key of ['import', 'apply', 'dispose'] as const) {
    const value = timeouts?.[key]
    if (value !== undefined && !(typeof value === 'number' && value > 0 && value <= 2 ** 31 - 1)) throw invalidTimeout(key, value)
  }
  return resolveTimeouts(timeouts)
}

/** The YAML limits of this load, each checked to be a positive whole number (or `Infinity`). */
function checkLimits(options: LoadOptions<any>): YamlLimits {
  const limits = { tokens: options.maxYamlTokens ?? DEFAULT_MAX_YAML_TOKENS, doubleQuotedChars: options.maxDoubleQuotedChars ?? DEFAULT_MAX_DOUBLE_QUOTED_CHARS }
  for (const [key, value] of [['maxYamlTokens', limits.tokens], ['maxDoubleQuotedChars', limits.doubleQuotedChars]] as const) {
    if (!(value === Infinity || (Number.isSafeInteger(value) && value > 0))) throw invalidLimit(key, value)
  }
  return limits
}

/** The codes of the file checks of `DeploymentSource.read`, whose errors say themselves what is wrong. */
const FILE_CHECKS = new Set(['LOADER_NOT_A_FILE', 'LOADER_FILE_TOO_LARGE', 'LOADER_YAML_TOO_MANY_TOKENS', 'LOADER_YAML_DOUBLE_QUOTED_TOO_LONG'])

async function readSource(file: string, maxBytes: number | undefined, limits: YamlLimits): Promise<DeploymentSource> {
  try {
    return await DeploymentSource.read(file, maxBytes, limits)
  } catch (error) {
    // The system's errors are worded by `unreadable`.
    const checked = FILE_CHECKS.has(codeOf(error) ?? '')
    const { code, message, position } = checked ? error as Error & { code: string; position?: Position } : { ...unreadable(error), position: undefined }
    throw new DeploymentError([{ file: displayPath(file), ...(position ? { line: position.line, column: position.column } : {}), code, message }])
  }
}

/** `${VAR}` substitution in enabled rows and declared sections; a failing row is not resolved. */
function substitute(layout: Layout, env: Environment, problems: ProblemList, document: Document): void {
  // One set for the whole file: an anchor reached again through an alias is not substituted twice.
  const done = new WeakSet<object>()
  for (const row of layout.rows) {
    if (row.disabled) continue
    for (const failure of substituteTree(row.node, ['plugins', row.index], env, 2, document, done)) {
      problems.add({ ...failure, row })
      row.valid = false
    }
    const id = stringOf(row.idNode) ?? (row.idNode === undefined ? stringOf(row.nameNode) : undefined)
    if (id) row.id = id
  }
  for (const [key, node] of layout.sections) {
    for (const failure of substituteTree(node, [key], env, 0, document, done)) problems.add(failure)
  }
}

function checkIds(rows: readonly Row[], source: DeploymentSource, problems: ProblemList): void {
  const seen = new Map<string, Row>()
  for (const row of rows) {
    if (row.id === undefined) continue
    const first = seen.get(row.id)
    if (!first) {
      seen.set(row.id, row)
      continue
    }
    const key = row.idNode !== undefined ? 'id' : 'name'
    const node = row.idNode ?? row.nameNode
    problems.add({ ...duplicateId(row.id, rowLabel(first), source.positionOfNode(first.node)?.line), row, node, path: ['plugins', row.index, key] })
    row.valid = false
  }
}

async function readSections<S extends SectionSchemas>(source: DeploymentSource, layout: Layout, schemas: S, problems: ProblemList): Promise<SectionValues<S>> {
  const values: Record<string, unknown> = {}
  if (!layout.mapping) return values as SectionValues<S>
  for (const [key, schema] of Object.entries(schemas)) {
    const node = layout.sections.get(key)
    const converted = toValue(source, node, [key], problems)
    if (!converted.ok) continue
    const strays = strayKeys(schema, converted.value)
    for (const stray of strays) {
      const message = stray.allowed ? unknownSectionKey(key, formatKeyPath(stray.path), stray.allowed) : protoKey()
      problems.add({ ...message, path: [key, ...stray.path] })
    }
    const result = await validate(schema, converted.value)
    if (result.ok && !strays.length) values[key] = result.value
    else if (!result.ok) for (const failure of result.failures) problems.add({ ...invalidSection(key, failure.message, failure.code), path: [key, ...failure.path] })
  }
  return values as SectionValues<S>
}

/** Resolves, imports and config-checks every enabled, well-formed row. */
async function resolveRows(
  source: DeploymentSource, rows: readonly Row[], problems: ProblemList,
  options: { tsx: boolean | undefined; importMs: number; tell: (phase: 'import', row: Request['row'], name: string, path: string) => void },
): Promise<Request[]> {
  const requests: Request[] = []
  for (const row of rows) {
    if (row.disabled || !row.valid || row.id === undefined) continue
    const name = stringOf(row.nameNode)!
    const namePath: KeyPath = ['plugins', row.index, 'name']
    const fail = (message: LoaderMessage, node: unknown = row.nameNode, path: KeyPath = namePath) => problems.add({ ...message, row, node, path })
    if (name === '@cordisjs/plugin-logger') {
      fail(unsupportedPlugin(name, PLUGIN_LOGGER_REASON))
      continue
    }
    const resolved = resolvePluginModule(name, source.file)
    if (!resolved.ok) {
      fail(resolved)
      continue
    }
    options.tell('import', row as Request['row'], name, resolved.path)
    const bounded = await within(importModule(resolved.path, { deploymentFile: source.file, tsx: options.tsx }), options.importMs)
    if (!bounded.settled) {
      fail(importTimeout(name, displayPath(resolved.path), options.importMs))
      continue
    }
    // `importModule` never rejects: a module that throws is `ok: false`.
    const imported = bounded.ok ? bounded.value : { ok: false as const, error: bounded.error }
    if (!imported.ok) {
      const { typeScript } = imported
      fail(typeScript
        ? typeScriptUnsupported(name, displayPath(resolved.path), typeScript.tried, typeScript.reason)
        : importFailed(name, displayPath(resolved.path), describeError(imported.error)))
      continue
    }
    const plugin = pluginOf(imported.module)
    if (!plugin) {
      fail(noPlugin(name, exportNames(imported.module)))
      continue
    }
    const configPath: KeyPath = ['plugins', row.index, 'config']
    const converted = toValue(source, row.configNode, configPath, problems, row)
    if (!converted.ok) continue
    const config = converted.value ?? undefined
    const schema = (plugin as { Config?: unknown }).Config
    // Checked before validation, which may copy (and so act on) the very keys reported here.
    const strays = strayKeys(schema, config)
    for (const stray of strays) {
      const message = stray.allowed ? unknownConfigKey(formatKeyPath(stray.path), stray.allowed) : protoKey()
      problems.add({ ...message, row, path: [...configPath, ...stray.path] })
    }
    if (schema !== undefined && schema !== null) {
      if (!isStandardSchema(schema)) {
        fail(configNotStandard(), row.configNode ?? row.nameNode, configPath)
        continue
      }
      const result = await validate(schema, config)
      if (!result.ok) {
        for (const failure of result.failures) problems.add({ ...invalidConfig(failure.message, failure.code), row, path: [...configPath, ...failure.path] })
        continue
      }
    }
    if (strays.length) continue
    requests.push({ row: row as Request['row'], name, path: resolved.path, plugin, config })
  }
  return requests
}

async function runHooks<S extends SectionSchemas>(
  ctx: Context, deployment: Deployment<S>, hooks: LoadOptions<S>['afterLoad'], rows: readonly Row[], problems: ProblemList,
): Promise<void> {
  const list: ReadonlyArray<AfterLoadHook<S>> = hooks === undefined ? [] : typeof hooks === 'function' ? [hooks] : hooks
  for (const hook of list) {
    let reported: ProblemInput[] | void
    try {
      reported = await hook(ctx, deployment)
    } catch (error) {
      problems.add(hookFailed(error))
      continue
    }
    for (const input of reported ?? []) addInput(input, rows, problems)
  }
}

/** Emits `deployment/loaded`; a listener that throws is one problem (the load then fails like any other). */
function announceLoaded<S extends SectionSchemas>(ctx: Context, deployment: Deployment<S>, problems: ProblemList): void {
  try {
    ctx.emit('deployment/loaded', deployment)
  } catch (error) {
    problems.add(loadedListenerFailed(error))
  }
}

function addInput(input: ProblemInput, rows: readonly Row[], problems: ProblemList): void {
  const row = input.entry === undefined ? undefined : rows.find((candidate) => candidate.id === input.entry)
  const key = input.key ? parseKeyPath(input.key) : []
  const path = row ? ['plugins', row.index, ...key] : key
  const position = input.line !== undefined ? { line: input.line, column: input.column ?? 1 } : undefined
  problems.add({ ...checkProblem(input, !!row), row, path: path.length ? path : undefined, node: row && !key.length ? row.node : undefined, position })
}

/** A node as plain data; an unresolvable alias is a problem, not a crash. `null` counts as absent. */
function toValue(source: DeploymentSource, node: Node | null | undefined, path: KeyPath, problems: ProblemList, row?: Row): { ok: true; value: unknown } | { ok: false } {
  if (node === undefined || node === null) return { ok: true, value: undefined }
  try {
    const value = isNode(node) ? node.toJS(source.doc) : node
    return { ok: true, value: value === null ? undefined : value }
  } catch (error) {
    problems.add({ ...yamlValue(describeError(error)), row, node, path })
    return { ok: false }
  }
}

function stringOf(node: Node | null | undefined): string | undefined {
  return isScalar(node) && typeof node.value === 'string' && node.value ? node.value : undefined
}
