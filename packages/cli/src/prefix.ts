/**
 * Where two request parts stop sharing a prefix: the first differing byte (UTF-8), the first differing
 * token, and the piece (section, context or tool) that byte falls in on each side. Pure and Cordis-free.
 * @module
 */
import { firstDifferentToken, type Tokenizer } from './tokens.js'

/** A named piece of a text, with its byte range `[start, end)` in the UTF-8 encoding of the text. */
export interface Piece {
  name: string
  owner?: string
  layer?: string
  start: number
  end: number
}

/** A text as sent, and the pieces it is made of (separators between pieces belong to none). */
export interface PiecedText {
  text: string
  pieces: Piece[]
}

/** Where an offset falls: inside a piece, in the separator just before one, or past the last piece. */
export interface Location {
  where: 'in' | 'before' | 'end'
  piece?: Omit<Piece, 'start' | 'end'>
}

/** The comparison of one part of two requests. */
export interface PartComparison {
  identical: boolean
  /** The byte lengths of the two texts. */
  bytes: [number, number]
  /** The first differing byte offset (absent when identical). */
  firstByte?: number
  /** The first differing token offset (absent when identical, or without a tokenizer). */
  firstToken?: number
  /** Where the first differing byte falls in each text. */
  at?: [Location, Location]
}

/** The piece a named item carries. */
export interface PieceInput {
  name: string
  text: string
  owner?: string
  layer?: string
}

/**
 * Builds `head + items joined by separator + tail` with the byte range of each item. An empty list
 * gives `empty` (a part the request leaves out is compared as that text).
 */
export function pieced(items: readonly PieceInput[], separator: string, head = '', tail = '', empty = ''): PiecedText {
  if (!items.length) return { text: empty, pieces: [] }
  const pieces: Piece[] = []
  let text = head
  let offset = Buffer.byteLength(head)
  items.forEach((item, index) => {
    if (index) {
      text += separator
      offset += Buffer.byteLength(separator)
    }
    const length = Buffer.byteLength(item.text)
    const piece: Piece = { name: item.name, start: offset, end: offset + length }
    if (item.owner !== undefined) piece.owner = item.owner
    if (item.layer !== undefined) piece.layer = item.layer
    pieces.push(piece)
    text += item.text
    offset += length
  })
  return { text: text + tail, pieces }
}

/** The first byte offset where the UTF-8 encodings of `a` and `b` differ, or `undefined` when equal. */
export function firstDifferentByte(a: string, b: string): number | undefined {
  if (a === b) return undefined
  const left = Buffer.from(a, 'utf8')
  const right = Buffer.from(b, 'utf8')
  const length = Math.min(left.length, right.length)
  for (let i = 0; i < length; i++) if (left[i] !== right[i]) return i
  return length
}

/** Where byte `offset` falls in `text`'s pieces. */
export function locate(text: PiecedText, offset: number): Location {
  for (const piece of text.pieces) {
    const { start, end, ...named } = piece
    if (offset < start) return { where: 'before', piece: named }
    if (offset < end) return { where: 'in', piece: named }
  }
  return { where: 'end' }
}

/** Compares two texts: identical, or where they first differ (bytes, tokens and pieces). */
export function comparePart(a: PiecedText, b: PiecedText, tokenizer?: Tokenizer): PartComparison {
  const bytes: [number, number] = [Buffer.byteLength(a.text), Buffer.byteLength(b.text)]
  const firstByte = firstDifferentByte(a.text, b.text)
  if (firstByte === undefined) return { identical: true, bytes }
  const result: PartComparison = { identical: false, bytes, firstByte, at: [locate(a, firstByte), locate(b, firstByte)] }
  if (tokenizer) result.firstToken = firstDifferentToken(tokenizer.encode(a.text), tokenizer.encode(b.text))
  return result
}

/** A location in words: `section "tool:bash" (dsh-plugin-shell, global)`, `the end of the text`. */
export function describeLocation(location: Location, kind: string): string {
  if (!location.piece) return 'the end of the text (the other side goes on)'
  const { owner, layer } = location.piece
  const origin = owner !== undefined ? ` (${!layer || layer === owner ? owner : `${owner}, ${layer}`})` : ''
  const where = location.where === 'before' ? 'just before ' : ''
  return `${where}${kind} ${JSON.stringify(location.piece.name)}${origin}`
}
