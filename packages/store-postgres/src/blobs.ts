/**
 * Texts stored once: an entry's large field values (a rendered prompt version's `content`, a tool
 * list) are cut out of its line and kept by SHA-256 in a table of their own; the entry keeps the rest
 * of its bytes and where each cut text goes back. Joining is exact by construction: the cut text is
 * the line's own substring, so a line that is not canonical JSON still comes back byte for byte (its
 * field is then found or not, never rewritten). Pure.
 * @module
 */
import { createHash } from 'node:crypto'

/** An entry line with its stored texts cut out. */
export interface SplitEntry {
  /** The line without the cut texts. */
  body: string
  /** Where each cut text goes back in `body`, ascending. */
  at: number[]
  /** Each cut text's hash, in the order of `at`. */
  hashes: string[]
  /** The cut texts by hash. */
  texts: Map<string, string>
}

/** The fields whose values are stored apart by default. */
export const BLOB_FIELDS: readonly string[] = ['content', 'tools']

/** The smallest value (in UTF-16 units of its JSON text) stored apart by default. */
export const MIN_BLOB_LENGTH = 256

/** SHA-256 (hex) of a stored text. */
export const textHash = (text: string) => createHash('sha256').update(text).digest('hex')

/** Cuts the JSON text of each of `fields` that `value` (the parsed `line`) holds at its top level and that is long enough. */
export function splitEntry(line: string, value: Record<string, unknown>, fields: readonly string[], minLength: number): SplitEntry {
  const spans: { start: number; text: string }[] = []
  for (const field of fields) {
    if (!Object.hasOwn(value, field)) continue
    const text = JSON.stringify(value[field])
    if (text === undefined || text.length < minLength) continue
    const name = JSON.stringify(field) + ':'
    const found = line.indexOf(name + text)
    if (found === -1) continue
    const start = found + name.length
    if (spans.some((span) => start < span.start + span.text.length && span.start < start + text.length)) continue
    spans.push({ start, text })
  }
  spans.sort((a, b) => a.start - b.start)
  let body = ''
  let from = 0
  const split: SplitEntry = { body: '', at: [], hashes: [], texts: new Map() }
  for (const { start, text } of spans) {
    body += line.slice(from, start)
    const hash = textHash(text)
    split.at.push(body.length)
    split.hashes.push(hash)
    split.texts.set(hash, text)
    from = start + text.length
  }
  split.body = body + line.slice(from)
  return split
}

/** The line `splitEntry` cut: each text put back where it was. */
export function joinEntry(body: string, at: readonly number[], texts: readonly string[]): string {
  let line = ''
  let from = 0
  at.forEach((position, index) => {
    line += body.slice(from, position) + texts[index]
    from = position
  })
  return line + body.slice(from)
}
