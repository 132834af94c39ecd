/**
 * The cache stream of a request (R-CACHE-1): its parts in the order the provider hashes them, each
 * serialised as canonical JSON (keys sorted, no spaces) without the cache markers themselves
 * (`cache_control` does not change what the provider hashes). Two requests share a cached prefix as
 * far as their streams agree byte for byte, so this is what the reuse report compares.
 *
 * The order per format (each format module's `order`):
 * - `anthropic`: tools, then system, then messages: the order Anthropic's prompt-caching guide gives
 *   for the cache prefix ("tools, system, messages", platform.claude.com/docs/en/build-with-claude/
 *   prompt-caching, read 2026-12-01).
 * - `openai-chat`, `openai-responses`: the system prompt (the first system message, or `instructions`),
 *   then the tools, then the other messages. OpenAI's caching guide does not say where tools render
 *   (it says only that tools "must be identical between requests" and that a structured-output schema
 *   is a prefix of the system message); the order here is the one OpenAI's published harmony format
 *   renders for its open-weight models: the instructions, then the tool namespace, then the turns.
 * - `gemini`: the `systemInstruction`, then the tools, then the contents. Google does not document the
 *   order of its implicit cache; this is the order the request carries them in.
 * A model change breaks every cache, so the stream begins with a `model` part.
 * Pure and Cordis-free.
 * @module
 */
/** A region of a request, in hashing terms. */
export type StreamRegion = 'tools' | 'system' | 'messages'

/** One part of a cache stream. */
export interface StreamPart {
  /** What the part is: the model, one tool, the opening system prompt, or one message. */
  readonly kind: 'model' | 'tool' | 'system' | 'message'
  /**
   * `tool`: the index in the request's tools; `message`: the index in the request's own message list
   * (`messages`, `input` or `contents`; for `openai-chat` the opening system message is index 0 and
   * its part is a `system` part); `system` and `model`: 0.
   */
  readonly index: number
  /** `tool`: the tool's name. */
  readonly name?: string
  /** The part as canonical JSON, without cache markers. */
  readonly text: string
  /** UTF-8 bytes of `text`. */
  readonly bytes: number
  /** How many content blocks the part holds (Anthropic counts its 20-block lookback in blocks). */
  readonly blocks: number
}

/** A request's cache stream. */
export interface CacheStream {
  readonly format: string
  readonly parts: readonly StreamPart[]
  /** UTF-8 bytes of the whole stream. */
  readonly bytes: number
}

/** Lets a caller reuse the head parts it made for an earlier request whose system prompt or tool is unchanged. */
export interface HeadMemo {
  system(make: () => StreamPart[]): StreamPart[]
  tool(index: number, name: string, make: () => StreamPart): StreamPart
}

/** The parts of one message (or tool, or system prompt) object, built once per frozen object. */
export function streamPart(kind: StreamPart['kind'], index: number, value: unknown, blocks = 1, name?: string): StreamPart {
  return makePart(kind, index, canonicalJson(value), blocks, name)
}

/** A frozen part of `text`. */
export function makePart(kind: StreamPart['kind'], index: number, text: string, blocks: number, name?: string): StreamPart {
  const part = { kind, index, text, bytes: Buffer.byteLength(text, 'utf8'), blocks }
  return Object.freeze(name === undefined ? part : { ...part, name })
}

/**
 * `value` as canonical JSON: object keys sorted by code unit, no whitespace, `cache_control` keys left
 * out, `undefined` members dropped as `JSON.stringify` drops them. Nothing is cached here (a module-wide
 * cache keyed by objects would outlive them in V8's weak tables): a wire session keeps the parts it made.
 */
export function canonicalJson(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null'
  let text: string
  if (Array.isArray(value)) {
    text = `[${value.map((item) => (item === undefined || typeof item === 'function' ? 'null' : canonicalJson(item))).join(',')}]`
  } else {
    const record = value as Record<string, unknown>
    const members: string[] = []
    for (const key of Object.keys(record).sort()) {
      const item = record[key]
      if (key === 'cache_control' || item === undefined || typeof item === 'function') continue
      members.push(`${JSON.stringify(key)}:${canonicalJson(item)}`)
    }
    text = `{${members.join(',')}}`
  }
  return text
}

/**
 * The UTF-8 length of the longest common prefix of two streams' texts, with the index of the first
 * part that differs (`-1` when `previous` is a prefix of `current` part for part).
 */
export function commonPrefix(previous: readonly StreamPart[], current: readonly StreamPart[]): { bytes: number; part: number; chars: number } {
  let bytes = 0
  const shared = Math.min(previous.length, current.length)
  for (let i = 0; i < shared; i++) {
    const a = previous[i].text
    const b = current[i].text
    if (a === b) {
      bytes += current[i].bytes
      continue
    }
    let chars = 0
    const end = Math.min(a.length, b.length)
    while (chars < end && a.charCodeAt(chars) === b.charCodeAt(chars)) chars++
    // Never split a surrogate pair: a half character is not a shared byte.
    if (chars > 0 && chars < end && isHighSurrogate(a.charCodeAt(chars - 1))) chars--
    return { bytes: bytes + Buffer.byteLength(b.slice(0, chars), 'utf8'), part: i, chars }
  }
  return { bytes, part: previous.length > shared ? shared : -1, chars: 0 }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff
}
