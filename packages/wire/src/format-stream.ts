/**
 * A format module's cache stream: its head (the model, then the system prompt and the tools in the
 * format's hashing order) and its element parts, read through the module, never by the format's name.
 * @module
 */
import { canonicalJson, makePart, streamPart, type CacheStream, type HeadMemo, type StreamPart } from './cache-stream.js'
import type { WireFormatModule } from './format-module.js'

/** The cache stream of `body`, a request of the format `module`. */
export function streamOf<B extends { model: string }>(module: WireFormatModule<B>, body: B): CacheStream {
  const parts = [...headOf(module, body), ...elementParts(module, body)]
  let bytes = 0
  for (const part of parts) bytes += part.bytes
  return { format: module.name, parts, bytes }
}

/** The parts of `body` before its messages: the model, then the system prompt and the tools in the format's hashing order. */
export function headOf<B extends { model: string }>(module: WireFormatModule<B>, body: B, memo?: HeadMemo): StreamPart[] {
  const parts: StreamPart[] = [makePart('model', 0, canonicalJson({ model: body.model }), 1)]
  for (const region of module.order) {
    if (region === 'system') parts.push(...(memo ? memo.system(() => module.systemParts(body)) : module.systemParts(body)))
    else if (region === 'tools') module.toolParts(body).forEach(([make, name], i) => parts.push(memo ? memo.tool(i, name, make) : make()))
  }
  return parts
}

/**
 * The parts of the body's element list, each indexed in that list (an opening sent as its first
 * element is a `system` part of the head, so the messages start at index 1).
 */
function elementParts<B extends { model: string }>(module: WireFormatModule<B>, body: B): StreamPart[] {
  const list = (body as unknown as Record<string, readonly object[]>)[module.elementsKey]
  const offset = module.openingIsElement ? module.systemParts(body).length : 0
  const parts: StreamPart[] = []
  for (let i = offset; i < list.length; i++) parts.push(streamPart('message', i, list[i], module.blocks(list[i])))
  return parts
}

/** Each of `tools` with a maker of its part, named by `name` (a format module's `toolParts`). */
export function namedToolParts<T>(tools: readonly T[], name: (tool: T) => string): Array<[() => StreamPart, string]> {
  return tools.map((tool, i): [() => StreamPart, string] => [() => streamPart('tool', i, tool, 1, name(tool)), name(tool)])
}
