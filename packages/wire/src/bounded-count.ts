/**
 * Token counting in bounded pieces, so a count costs time linear in the text's length whatever its
 * shape. BPE encoders (`gpt-tokenizer`'s o200k, DeepSeek V3's) merge within each pre-token, and their
 * cost grows with the square of a pre-token's length: 50 KB of one unbroken run (`xxxx…`, a run of
 * punctuation or of spaces, minified code) takes seconds in one call. So a text is handed to the encoder
 * in pieces of at most {@link MAX_PIECE} characters:
 * - a piece ends, where it can, just before a space or tab that follows a character that is not
 *   whitespace. Both encoders' pre-tokenizers never continue a pre-token from such a character into
 *   the space (a space only starts a pre-token or belongs to a whitespace one), so the pieces encode to
 *   exactly the tokens of the whole text: the count is exact;
 * - a stretch of more than {@link MAX_PIECE} characters without such a place (an unbroken run) is cut
 *   every {@link MAX_PIECE} characters (never inside a surrogate pair); the count of a cut text may
 *   differ from the whole text's by a few tokens per cut, and is marked as an estimate.
 * Text that is not made of dictionary words (base64, hex, random identifiers) costs the encoder about
 * ten times as much per character as prose, since no pre-token is a whole entry of its vocabulary. So
 * a count (not an encoding) of a long unbroken run, already an estimate, encodes its first
 * {@link FULL_PIECES} pieces and then one piece in {@link SAMPLE_STRIDE}, and counts the others at the
 * tokens per character of the encoded ones: 1 MB of base64 costs a few times 1 MB of prose, not 25.
 * Pure, Cordis-free; the encoder is any function from text to a count or to token ids.
 * @module
 */

/** The most UTF-16 code units handed to an encoder at once. */
export const MAX_PIECE = 256

/** How many pieces of an unbroken run a count encodes before it samples. */
export const FULL_PIECES = 4

/** Past {@link FULL_PIECES}, a count encodes one piece of an unbroken run in this many. */
export const SAMPLE_STRIDE = 8

/** A count of tokens, and whether an unbroken run was cut to make it (then it is an estimate). */
export interface BoundedCount {
  tokens: number
  estimate: boolean
}

/**
 * The pieces of `text` in order, as `[start, end, cut]`: the range `[start, end)` and whether it ends
 * where an unbroken run was cut; and whether any run had to be cut.
 */
export function boundedPieces(text: string, max: number = MAX_PIECE): { ranges: Array<[number, number, boolean]>; cut: boolean } {
  const ranges: Array<[number, number, boolean]> = []
  let cut = false
  let start = 0
  while (text.length - start > max) {
    let end = start + max
    // The last exact place in (start, start + max]: before a space or tab that follows non-whitespace.
    while (end > start && !(isBlank(text.charCodeAt(end)) && !isWhitespace(text.charCodeAt(end - 1)))) end--
    const hard = end === start
    if (hard) {
      cut = true
      end = start + max
      if (isHighSurrogate(text.charCodeAt(end - 1)) && end - 1 > start) end--
    }
    ranges.push([start, end, hard])
    start = end
  }
  if (start < text.length) ranges.push([start, text.length, false])
  return { ranges, cut }
}

/** Counts `text` with `count` in bounded pieces (see the module's comment). */
export function countInPieces(text: string, count: (piece: string) => number, max: number = MAX_PIECE): BoundedCount {
  if (text.length <= max) return { tokens: text ? count(text) : 0, estimate: false }
  const { ranges, cut } = boundedPieces(text, max)
  let tokens = 0
  // The pieces of the current unbroken run so far, and the tokens and characters of those encoded.
  let run = 0
  let runTokens = 0
  let runChars = 0
  let estimated = 0
  for (const [start, end, hard] of ranges) {
    if (hard && run >= FULL_PIECES && (run - FULL_PIECES) % SAMPLE_STRIDE !== 0) {
      estimated += (end - start) * runTokens / runChars
      run++
      continue
    }
    const piece = count(text.slice(start, end))
    tokens += piece
    if (hard) {
      run++
      runTokens += piece
      runChars += end - start
    } else {
      run = runTokens = runChars = 0
    }
  }
  return { tokens: tokens + Math.round(estimated), estimate: cut }
}

/** Encodes `text` with `encode` in bounded pieces: the ids of the pieces, one after the other. */
export function encodeInPieces(text: string, encode: (piece: string) => number[], max: number = MAX_PIECE): number[] {
  if (text.length <= max) return text ? encode(text) : []
  const ids: number[] = []
  for (const [start, end] of boundedPieces(text, max).ranges) {
    for (const id of encode(text.slice(start, end))) ids.push(id)
  }
  return ids
}

/** `count` made to count in bounded pieces: the same numbers where no run is cut, linear time always. */
export function boundedCounter(count: (text: string) => number, max: number = MAX_PIECE): (text: string) => number {
  return (text: string) => countInPieces(text, count, max).tokens
}

/** Whether counting `text` in bounded pieces cuts an unbroken run (its count is then an estimate). */
export function countIsEstimate(text: string, max: number = MAX_PIECE): boolean {
  return text.length > max && boundedPieces(text, max).cut
}

function isBlank(code: number): boolean {
  return code === 0x20 || code === 0x09
}

/** JavaScript's `\s` for the code units that matter here (ASCII and the common Unicode spaces). */
function isWhitespace(code: number): boolean {
  return code === 0x20 || (code >= 0x09 && code <= 0x0d) || code === 0xa0 || code === 0x1680 || (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 || code === 0x2029 || code === 0x202f || code === 0x205f || code === 0x3000 || code === 0xfeff || code === 0x85
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff
}
