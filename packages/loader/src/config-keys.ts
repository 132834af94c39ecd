/**
 * Keys a config's schema would let through without using them. schemastery's `object` keeps keys it does
 * not declare and hands them on, so a misspelt key (`tolOrder:`) loads without effect; and copying a
 * `__proto__` key replaces the copy's prototype. The loader reports both. Pure and Cordis-free.
 * @module
 */

/** A key a config should not have: undeclared (`allowed` lists the declared keys there) or `__proto__`. */
export interface StrayKey {
  /** The key's path inside the config. */
  path: Array<string | number>
  /** The keys the schema declares where the stray key stands; absent for a `__proto__` key. */
  allowed?: string[]
}

/** The parts of a schemastery schema node this module reads. */
interface SchemaNode {
  type: string
  dict?: Record<string, SchemaNode>
  inner?: SchemaNode
  list?: SchemaNode[]
  (value: unknown): unknown
}

const PROTO = '__proto__'

/**
 * The stray keys of `value` (a config as written) under `schema`: every `__proto__` key at any depth, and,
 * where the schema is a schemastery schema that declares its keys (`object`, an `intersect` of such, through
 * `transform`, `array`, `tuple`, `dict` values and the one matching `union` branch), every key it does not
 * declare. Other schemas (and schemastery nodes that accept any key) are not second-guessed.
 */
export function strayKeys(schema: unknown, value: unknown): StrayKey[] {
  const found: StrayKey[] = protoKeys(value)
  if (isNode(schema) && (schema as unknown as { '~standard'?: { vendor?: unknown } })['~standard']?.vendor === 'schemastery') {
    walk(schema, value, [], found)
  }
  return found
}

function walk(node: SchemaNode, value: unknown, path: Array<string | number>, found: StrayKey[]): void {
  if (node.type === 'transform' && isNode(node.inner)) return walk(node.inner, value, path, found)
  if (node.type === 'union') {
    const branch = matchingBranch(node, value)
    if (branch) walk(branch, value, path, found)
    return
  }
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      const inner = node.type === 'array' ? node.inner : node.type === 'tuple' ? node.list?.[index] : undefined
      if (isNode(inner)) walk(inner, item, [...path, index], found)
    })
    return
  }
  if (!isPlainObject(value)) return
  const keys = declaredKeys(node)
  for (const key of Object.keys(value)) {
    if (key === PROTO) continue
    if (keys && !keys.has(key)) {
      found.push({ path: [...path, key], allowed: [...keys].sort() })
      continue
    }
    for (const child of childNodes(node, key)) walk(child, value[key], [...path, key], found)
  }
}

/** The keys an object-like node declares, or `undefined` when it accepts keys it does not name. */
function declaredKeys(node: SchemaNode): Set<string> | undefined {
  if (node.type === 'object' && node.dict) return new Set(Object.keys(node.dict))
  if (node.type === 'intersect' && node.list?.length) {
    const keys = new Set<string>()
    for (const member of node.list) {
      const own = isNode(member) ? declaredKeys(member) : undefined
      if (!own) return undefined
      for (const key of own) keys.add(key)
    }
    return keys
  }
  if (node.type === 'transform' && isNode(node.inner)) return declaredKeys(node.inner)
  return undefined
}

/** The schema nodes that validate the value at `key` of an object-like node. */
function childNodes(node: SchemaNode, key: string): SchemaNode[] {
  if (node.type === 'object') return isNode(node.dict?.[key]) ? [node.dict![key]] : []
  if (node.type === 'dict') return isNode(node.inner) ? [node.inner] : []
  if (node.type === 'intersect') return (node.list ?? []).filter(isNode).flatMap((member) => childNodes(member, key))
  if (node.type === 'transform' && isNode(node.inner)) return childNodes(node.inner, key)
  return []
}

/** The union branch `value` is checked against: the only object-like one, else the first that accepts it. */
function matchingBranch(node: SchemaNode, value: unknown): SchemaNode | undefined {
  if (!isPlainObject(value) && !Array.isArray(value)) return undefined
  const branches = (node.list ?? []).filter(isNode).filter((branch) => Array.isArray(value) ? branch.type === 'array' || branch.type === 'tuple' : declaredKeys(branch) !== undefined)
  if (branches.length <= 1) return branches[0]
  return branches.find((branch) => {
    try {
      branch(structuredClone(value))
      return true
    } catch {
      return false
    }
  })
}

/** Every `__proto__` key in `value`, at any depth (iteratively: the value may be deeply nested). */
function protoKeys(value: unknown): StrayKey[] {
  const found: StrayKey[] = []
  const stack: Array<[unknown, Array<string | number>]> = [[value, []]]
  while (stack.length) {
    const [current, path] = stack.pop()!
    if (Array.isArray(current)) current.forEach((item, index) => stack.push([item, [...path, index]]))
    else if (isPlainObject(current)) {
      for (const key of Object.keys(current)) {
        if (key === PROTO) found.push({ path: [...path, key] })
        else stack.push([current[key], [...path, key]])
      }
    }
  }
  return found.reverse()
}

function isNode(value: unknown): value is SchemaNode {
  return typeof value === 'function' && typeof (value as { type?: unknown }).type === 'string'
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false
  const prototype = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null
}
