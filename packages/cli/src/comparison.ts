/**
 * The data behind `diff`: two targets' requests compared part by part (system prompt, tools,
 * runtime-context snapshot), each with where the shared prefix ends and a unified diff of what differs;
 * with a wire format, the parts in the order that format's provider hashes them and the two requests'
 * cache streams compared, so the first break is the one the provider meets first.
 * @module
 */
import { RUNTIME_CONTEXT_HEADING } from 'dsh-system-prompt'
import type { BootedDeployment as Booted } from 'dsh-boot'
import { commonPrefix, type StreamPart, type StreamRegion, type WireFormat } from 'dsh-wire'
import { boundedPatch } from './bounded-diff.js'
import { comparePart, pieced, type Location, type PartComparison, type PiecedText } from './prefix.js'
import { streamOf, streamOrder, streamRows, type StreamRow } from './stream.js'
import type { Tokenizer } from './tokens.js'
import { toolOrigins, type PromptView } from './view.js'
import { ownersOf } from './owners.js'

/** The parts of a request `diff` compares, in the order it reports them. */
export const PARTS = ['system', 'tools', 'snapshot'] as const
/** `system`, `tools` or `snapshot`. */
export type PartName = typeof PARTS[number]

/** How each part is named in the output. */
export const PART_TITLES: Readonly<Record<PartName, string>> = { system: 'system prompt', tools: 'tools', snapshot: 'runtime context' }

/** What each part's pieces are called. */
export const PIECE_KINDS: Readonly<Record<PartName, string>> = { system: 'section', tools: 'tool', snapshot: 'context' }

/** The part of `diff` each region of a cache stream is (the messages of its one step carry the runtime context). */
const REGION_PARTS: Readonly<Record<StreamRegion, PartName>> = { system: 'system', tools: 'tools', messages: 'snapshot' }

/** The parts in the order `diff` reports them: {@link PARTS}, or the order `format`'s provider hashes them. */
export function partsInOrder(format?: WireFormat): PartName[] {
  return format ? streamOrder(format).map((region) => REGION_PARTS[region]) : [...PARTS]
}

/** What one side has at the first stream part where the two requests differ. */
export interface StreamSpot {
  /** The part's kind, or `end` when this side's stream ends before it. */
  kind: StreamPart['kind'] | 'end'
  /** The model's name, the tool's, `system prompt`, `runtime context` or `message (role)`; `null` at the end. */
  name: string | null
  owner: string | null
  layer: string | null
  /**
   * Inside the system prompt or the runtime context: where the part's text first differs, as `diff`'s
   * parts say it (`in` a piece, just `before` one, or at the `end` of this side's text); `null` elsewhere.
   */
  where: Location['where'] | null
  /** With `where` `in` or `before`: that section or context. */
  piece: { kind: 'section' | 'context'; name: string; owner: string | null; layer: string | null } | null
}

/** The two requests' cache streams compared. */
export interface StreamComparison {
  format: WireFormat
  /** The regions after the model, in hash order. */
  order: readonly StreamRegion[]
  /** The two streams' UTF-8 lengths. */
  bytes: [number, number]
  /** The length of their common prefix: what a request of B could reuse of A's cached prefix. */
  sharedBytes: number
  /** Where they first differ, or `null` when the streams are byte-identical. */
  firstBreak: { position: number; a: StreamSpot; b: StreamSpot } | null
}

/** One side of a comparison: a loaded deployment and the view of one target. */
export interface Side {
  booted: Booted
  view: PromptView
  /** How the side is labelled in the unified diff (`a/examples/x.yml (agent main)`). */
  label: string
}

/** One part compared, with the unified diff when it differs. */
export interface PartDiff extends PartComparison {
  part: PartName
  /** A unified diff (jsdiff) of the part's text (tools: pretty JSON); absent when identical, or when more lines differ than a diff is worked out for. */
  patch?: string
  /** In the patch's place when more than `MAX_DIFF_EDITS` lines differ: says so, and how large each side is. */
  summary?: string
}

/** Two requests compared. */
export interface Comparison {
  /** Every part byte-identical. */
  identical: boolean
  parts: PartDiff[]
  /** The models of the two requests (`null` for a deployment-level side). */
  models: [string | null, string | null]
  /** With a format: the two cache streams compared. */
  stream?: StreamComparison
}

/**
 * Compares the requests of two sides; with `format`, in that format's hash order, with the cache
 * streams compared (both sides need an agent).
 */
export function compareSides(a: Side, b: Side, tokenizer: Tokenizer, format?: WireFormat): Comparison {
  const parts = partsInOrder(format).map((part) => {
    const left = piecesOf(a, part)
    const right = piecesOf(b, part)
    const result: PartDiff = { part, ...comparePart(left, right, tokenizer) }
    if (!result.identical) Object.assign(result, boundedPatch(a.label, b.label, displayOf(a.view, part), displayOf(b.view, part)))
    return result
  })
  const comparison: Comparison = {
    identical: parts.every((part) => part.identical),
    parts,
    models: [a.view.target.agent?.model ?? null, b.view.target.agent?.model ?? null],
  }
  if (format) comparison.stream = compareStreams(a, b, format, parts)
  return comparison
}

/** The cache streams of the two sides' requests in `format`, and the first part where they differ. */
function compareStreams(a: Side, b: Side, format: WireFormat, parts: readonly PartDiff[]): StreamComparison {
  const streamA = streamOf(a.booted, a.view, format)
  const streamB = streamOf(b.booted, b.view, format)
  const shared = commonPrefix(streamA.parts, streamB.parts)
  const result: StreamComparison = { format, order: streamOrder(format), bytes: [streamA.bytes, streamB.bytes], sharedBytes: shared.bytes, firstBreak: null }
  if (streamA.bytes === streamB.bytes && shared.bytes === streamA.bytes) return result
  const rowsA = streamRows(a.booted, a.view, streamA)
  const rowsB = streamRows(b.booted, b.view, streamB)
  let index = 0
  while (index < rowsA.length && index < rowsB.length && streamA.parts[index].text === streamB.parts[index].text) index++
  const diffOf = (part: PartName) => parts.find((p) => p.part === part)
  const spot = (row: StreamRow | undefined, side: 0 | 1): StreamSpot => {
    if (!row) return { kind: 'end', name: null, owner: null, layer: null, where: null, piece: null }
    const region = row.kind === 'system' ? diffOf('system') : row.kind === 'message' && row.name === 'runtime context' ? diffOf('snapshot') : undefined
    const location: Location | undefined = region && !region.identical ? region.at![side] : undefined
    const piece = location?.piece
      ? { kind: row.kind === 'system' ? 'section' as const : 'context' as const, name: location.piece.name, owner: location.piece.owner ?? null, layer: location.piece.layer || null }
      : null
    return { kind: row.kind, name: row.name, owner: row.owner, layer: row.layer, where: location?.where ?? null, piece }
  }
  result.firstBreak = { position: index + 1, a: spot(rowsA[index], 0), b: spot(rowsB[index], 1) }
  return result
}

/** A part's text as the request carries it, with its pieces and their owners. */
export function piecesOf(side: Side, part: PartName): PiecedText {
  const { booted, view } = side
  const owners = ownersOf(booted)
  if (part === 'tools') {
    const originOf = toolOrigins(booted, view.target)
    // The request's JSON: `[tool,tool,...]`; no tools at all means no `tools` field, compared as ''.
    return pieced(view.tools.map((tool) => ({ name: tool.function.name, text: JSON.stringify(tool), ...originOf(tool.function.name) })), ',', '[', ']')
  }
  const list = part === 'system' ? view.sections : view.contexts
  const items = list.map((p) => ({ name: p.name, text: p.text, owner: owners.plugin(p.entry.owner), layer: owners.layer(p.entry.scope) }))
  if (part === 'system') return pieced(items, '\n\n')
  return items.length ? pieced([{ name: '(snapshot heading)', text: RUNTIME_CONTEXT_HEADING }, ...items], '\n\n') : pieced([], '')
}

/** The text a part's unified diff is made of (tools as pretty JSON, one tool per block). */
function displayOf(view: PromptView, part: PartName): string {
  if (part === 'tools') return view.tools.length ? JSON.stringify(view.tools, null, 2) + '\n' : ''
  const text = part === 'system' ? view.system : view.snapshot
  return text ? text + '\n' : ''
}
