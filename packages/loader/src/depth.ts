/**
 * How deep a deployment nests, read without recursion: the loader's own walks (substitution, config
 * keys, `toJS`) recurse, so a file nested thousands of levels deep would exhaust the stack in one of
 * them. A file deeper than {@link MAX_YAML_DEPTH} is refused first, with the place where it goes too deep.
 * @module
 */
import { isMap, isPair, isSeq, type Document, type Node } from 'yaml'

/**
 * The deepest nesting of mappings and lists read (the top mapping is level 1). The same figure as the
 * deepest tool schema `dsh-system-prompt` freezes, so a schema written in a config always fits; a real
 * deployment needs about ten.
 */
export const MAX_YAML_DEPTH = 256

/** The first collection node (in document order) nested deeper than `limit`, or `undefined`. */
export function tooDeep(doc: Document.Parsed, limit = MAX_YAML_DEPTH): Node | undefined {
  const stack: Array<[unknown, number]> = [[doc.contents, 1]]
  while (stack.length) {
    const [node, depth] = stack.pop()!
    if (!isMap(node) && !isSeq(node)) continue
    if (depth > limit) return node
    const children: unknown[] = []
    for (const item of node.items as unknown[]) {
      if (isPair(item)) children.push(item.key, item.value)
      else children.push(item)
    }
    // Pushed in reverse, so the first child is looked at first (the problem is the earliest place).
    for (let i = children.length - 1; i >= 0; i--) stack.push([children[i], depth + 1])
  }
  return undefined
}

/** Whether a `yaml` parse error is its stack running out (a file nested thousands of levels deep). */
export function isStackExhaustion(error: { code?: unknown; message?: unknown }): boolean {
  return error.code === 'RESOURCE_EXHAUSTION' && /call stack/i.test(String(error.message))
}
