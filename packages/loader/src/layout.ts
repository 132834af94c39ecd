import { isMap, isPair, isScalar, isSeq, type Node, type Pair, type YAMLMap } from 'yaml'
import {
  emptyDeployment, emptyString, missingName, missingPlugins, pluginsNotList, rowNotMapping, topNotMapping,
  unknownRowKey, unknownTopKey, wrongType,
} from './errors.js'
import type { ProblemList, RowRef } from './problems.js'
import { describeNode, keyText, type DeploymentSource } from './source.js'

/** One `plugins:` row as written, before module resolution. */
export interface Row extends RowRef {
  /** The row's mapping node. */
  node: YAMLMap
  /** The value nodes of the row's known keys (absent when the key is absent). */
  nameNode?: Node | null
  idNode?: Node | null
  configNode?: Node | null
  /** `disabled: true`: validated for shape, never resolved or mounted. */
  disabled: boolean
  /** False when the row's shape is wrong (it is then neither resolved nor mounted). */
  valid: boolean
}

/** The top level of a deployment: its rows and the value nodes of the declared sections. */
export interface Layout {
  /** False when the top level is not a mapping (nothing else could be read). */
  mapping: boolean
  rows: Row[]
  sections: Map<string, Node | null>
}

/**
 * Checks the top level (`plugins:` plus the declared sections, nothing else) and the shape of every
 * row (only `name`, `id`, `config`, `disabled`; `name` and `id` strings, `disabled` a boolean).
 * Every problem goes to `problems`; rows with a wrong shape come back with `valid: false`.
 */
export function readLayout(source: Pick<DeploymentSource, 'doc'>, sectionKeys: readonly string[], problems: ProblemList): Layout {
  const layout: Layout = { mapping: false, rows: [], sections: new Map() }
  const top = source.doc.contents as Node | null
  if (top === null || top === undefined || (isScalar(top) && top.value === null)) {
    problems.add(emptyDeployment())
    return layout
  }
  if (!isMap(top)) {
    problems.add({ ...topNotMapping(describeNode(top)), node: top })
    return layout
  }
  layout.mapping = true
  const allowed = ['plugins', ...sectionKeys]
  let plugins: Pair | undefined
  for (const pair of top.items) {
    const key = keyText(pair.key)
    if (key === 'plugins') plugins = pair
    else if (sectionKeys.includes(key)) layout.sections.set(key, pair.value as Node | null)
    else problems.add({ ...unknownTopKey(key, allowed), node: pair.key, path: [key] })
  }
  if (!plugins) {
    problems.add({ ...missingPlugins(), node: top })
    return layout
  }
  const list = plugins.value as Node | null
  if (list === null || (isScalar(list) && list.value === null)) return layout
  if (!isSeq(list)) {
    problems.add({ ...pluginsNotList(describeNode(list)), node: list, path: ['plugins'] })
    return layout
  }
  list.items.forEach((item, index) => {
    const row = readRow(item as Node | null, index, problems)
    if (row) layout.rows.push(row)
  })
  return layout
}

function readRow(node: Node | null, index: number, problems: ProblemList): Row | undefined {
  const ref: RowRef = { index }
  if (!isMap(node)) {
    problems.add({ ...rowNotMapping(describeNode(node)), row: ref, node, path: ['plugins', index] })
    return undefined
  }
  const row: Row = { index, node, disabled: false, valid: true }
  for (const pair of node.items) {
    if (!isPair(pair)) continue
    const key = keyText(pair.key)
    const value = pair.value as Node | null
    if (key === 'name') row.nameNode = value
    else if (key === 'id') row.idNode = value
    else if (key === 'config') row.configNode = value
    else if (key === 'disabled') row.disabled = isScalar(value) && value.value === true
    else {
      problems.add({ ...unknownRowKey(key), row, node: pair.key, path: ['plugins', index, key] })
      row.valid = false
    }
  }
  // The id is known early, so every problem of this row can name it.
  if (isScalar(row.idNode) && typeof row.idNode.value === 'string' && row.idNode.value) row.id = row.idNode.value
  else if (row.idNode === undefined && isScalar(row.nameNode) && typeof row.nameNode.value === 'string' && row.nameNode.value) {
    row.id = row.nameNode.value
  }
  if (row.nameNode === undefined) {
    problems.add({ ...missingName(), row, node, path: ['plugins', index] })
    row.valid = false
  } else {
    row.valid = checkString(row, 'name', row.nameNode, problems) && row.valid
  }
  if (row.idNode !== undefined) row.valid = checkString(row, 'id', row.idNode, problems) && row.valid
  const disabled = node.items.find((pair) => isPair(pair) && keyText(pair.key) === 'disabled')
  if (disabled && !(isScalar(disabled.value) && typeof disabled.value.value === 'boolean')) {
    problems.add({ ...wrongType('disabled', 'true or false', describeNode(disabled.value as Node | null)), row, node: disabled.value, path: ['plugins', index, 'disabled'] })
    row.valid = false
  }
  return row
}

function checkString(row: Row, key: 'name' | 'id', value: Node | null, problems: ProblemList): boolean {
  const path = ['plugins', row.index, key]
  if (!isScalar(value) || typeof value.value !== 'string') {
    problems.add({ ...wrongType(key, 'a string', describeNode(value)), row, node: value, path })
    return false
  }
  if (!value.value.trim()) {
    problems.add({ ...emptyString(key), row, node: value, path })
    return false
  }
  return true
}
