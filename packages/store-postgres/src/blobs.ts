/**
 * Texts stored once (R-STORE-8): parts of an entry's line are cut out and kept by SHA-256 in a table
 * of their own; the entry keeps the rest of its bytes and where each cut text goes back. Three cuts:
 * - a prompt version's **sections**: a line whose `content` string is cut into its parts by the line's
 *   own `sections` (dsh-agent's ledger, R-LEDGER-7: byte ranges joined by one blank line) has each
 *   section's text stored apart, keyed by the SHA-256 of the text (the part's own `hash`); the body keeps
 *   the blank lines between them;
 * - each element of an array field (`tools`: one tool schema each), as its JSON text;
 * - a long top-level value (`content` without usable parts), as its JSON text.
 * Joining is exact by construction: a cut text is the line's own substring, or a section whose JSON
 * spelling was checked to be the line's substring when it was cut. A line that is not canonical JSON
 * still comes back byte for byte (its field is then cut or not, never rewritten). Pure.
 * @module
 */
import { createHash } from 'node:crypto'

/** What is cut out of an entry line. */
export interface BlobRules {
  /** Top-level fields whose whole value is stored apart when its JSON text is at least `minLength` long. */
  fields: readonly string[]
  /** The shortest whole value stored apart, in UTF-16 units of its JSON text. */
  minLength: number
  /** Top-level array fields each of whose elements is stored apart (any length). */
  elements: readonly string[]
  /** Whether a `content` string with `sections` (byte ranges joined by a blank line) is stored section by section. */
  sections: boolean
}

/** The rules by default: sections, each tool schema, and any other long `content`. */
export const DEFAULT_BLOB_RULES: BlobRules = Object.freeze({ fields: Object.freeze(['content']), minLength: 256, elements: Object.freeze(['tools']), sections: true })

/** An entry line with its stored texts cut out. */
export interface SplitEntry {
  /** The line without the cut texts. */
  body: string
  /** Where each cut text goes back in `body`, ascending. */
  at: number[]
  /** Each cut text's hash, in the order of `at`. */
  hashes: string[]
  /** Whether each cut text goes back as the inside of a JSON string (a section's text), else as it is (a JSON text). */
  strings: boolean[]
  /** The cut texts by hash. */
  texts: Map<string, string>
}

/** SHA-256 (hex) of a stored text. */
export const textHash = (text: string) => createHash('sha256').update(text).digest('hex')

/** One cut: `length` UTF-16 units of the line from `start`, stored as `text`. */
interface Cut {
  start: number
  length: number
  text: string
  string: boolean
}

/** The spelling of `text` inside a JSON string, as `JSON.stringify` writes it. */
const inside = (text: string) => JSON.stringify(text).slice(1, -1)

/** Cuts the stored texts out of `line` (whose parsed value is `value`) by `rules`. */
export function splitEntry(line: string, value: Record<string, unknown>, rules: BlobRules = DEFAULT_BLOB_RULES): SplitEntry {
  const cuts: Cut[] = []
  const taken = (start: number, length: number) => cuts.some((cut) => start < cut.start + cut.length && cut.start < start + length)
  if (rules.sections) cuts.push(...sectionCuts(line, value))
  for (const field of rules.elements) {
    const items = value[field]
    if (!Object.hasOwn(value, field) || !Array.isArray(items)) continue
    const found = valueAt(line, field, JSON.stringify(items))
    if (found === -1 || taken(found, 1)) continue
    let start = found + 1
    for (const item of items) {
      const text = JSON.stringify(item) ?? 'null'
      cuts.push({ start, length: text.length, text, string: false })
      start += text.length + 1
    }
  }
  for (const field of rules.fields) {
    if (!Object.hasOwn(value, field)) continue
    const text = JSON.stringify(value[field])
    if (text === undefined || text.length < rules.minLength) continue
    const found = valueAt(line, field, text)
    if (found === -1 || taken(found, text.length)) continue
    cuts.push({ start: found, length: text.length, text, string: false })
  }
  cuts.sort((a, b) => a.start - b.start)
  const split: SplitEntry = { body: '', at: [], hashes: [], strings: [], texts: new Map() }
  let from = 0
  for (const cut of cuts) {
    split.body += line.slice(from, cut.start)
    const hash = textHash(cut.text)
    split.at.push(split.body.length)
    split.hashes.push(hash)
    split.strings.push(cut.string)
    split.texts.set(hash, cut.text)
    from = cut.start + cut.length
  }
  split.body += line.slice(from)
  return split
}

/** Where the JSON text `text` of top-level field `field` starts in `line` (`-1` when it is not spelled so). */
function valueAt(line: string, field: string, text: string): number {
  const name = JSON.stringify(field) + ':'
  const found = line.indexOf(name + text)
  return found === -1 ? -1 : found + name.length
}

/**
 * The sections of a `content` string cut by the line's `sections`: each part's `start`/`end` are byte
 * offsets in the UTF-8 text, the first at 0, each next one two bytes (a blank line) after the one before,
 * the last at the end. None when the parts do not cut the text so, or the line does not spell it as
 * `JSON.stringify` does.
 */
function sectionCuts(line: string, value: Record<string, unknown>): Cut[] {
  const { content, sections } = value
  if (typeof content !== 'string' || !Array.isArray(sections) || !sections.length) return []
  const bytes = Buffer.from(content, 'utf8')
  const texts: string[] = []
  let expected = 0
  for (const part of sections as unknown[]) {
    const { start, end } = (part ?? {}) as { start?: unknown; end?: unknown }
    if (start !== expected || typeof end !== 'number' || !Number.isSafeInteger(end) || end < start || end > bytes.length) return []
    texts.push(bytes.subarray(start, end).toString('utf8'))
    expected = end + 2
  }
  if (expected - 2 !== bytes.length) return []
  const spelled = texts.map(inside)
  const whole = `"${spelled.join('\\n\\n')}"`
  if (whole !== JSON.stringify(content)) return []
  const found = valueAt(line, 'content', whole)
  if (found === -1) return []
  const cuts: Cut[] = []
  let at = found + 1
  texts.forEach((text, index) => {
    if (text) cuts.push({ start: at, length: spelled[index].length, text, string: true })
    at += spelled[index].length + 4
  })
  return cuts
}

/** The line `splitEntry` cut: each text put back where it was (a section's spelled as inside a JSON string). */
export function joinEntry(body: string, at: readonly number[], texts: readonly string[], strings: readonly boolean[] = []): string {
  let line = ''
  let from = 0
  at.forEach((position, index) => {
    line += body.slice(from, position) + (strings[index] ? inside(texts[index]) : texts[index])
    from = position
  })
  return line + body.slice(from)
}
