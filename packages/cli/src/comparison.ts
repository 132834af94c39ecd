/**
 * The data behind `diff`: two targets' requests compared part by part (system prompt, tools,
 * runtime-context snapshot), each with where the shared prefix ends and a unified diff of what differs.
 * @module
 */
import { createTwoFilesPatch } from 'diff'
import { RUNTIME_CONTEXT_HEADING } from 'dsh-system-prompt'
import type { BootedDeployment as Booted } from 'dsh-agent'
import { comparePart, pieced, type PartComparison, type PiecedText } from './prefix.js'
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
  /** A unified diff (jsdiff) of the part's text (tools: pretty JSON); absent when identical. */
  patch?: string
}

/** Two requests compared. */
export interface Comparison {
  /** Every part byte-identical. */
  identical: boolean
  parts: PartDiff[]
  /** The models of the two requests (`null` for a deployment-level side). */
  models: [string | null, string | null]
}

/** Compares the requests of two sides. */
export function compareSides(a: Side, b: Side, tokenizer: Tokenizer): Comparison {
  const parts = PARTS.map((part) => {
    const left = piecesOf(a, part)
    const right = piecesOf(b, part)
    const result: PartDiff = { part, ...comparePart(left, right, tokenizer) }
    if (!result.identical) result.patch = unifiedDiff(a.label, b.label, displayOf(a.view, part), displayOf(b.view, part))
    return result
  })
  return {
    identical: parts.every((part) => part.identical),
    parts,
    models: [a.view.target.agent?.model ?? null, b.view.target.agent?.model ?? null],
  }
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

/** A unified diff with three lines of context, without jsdiff's `===` banner. */
export function unifiedDiff(labelA: string, labelB: string, a: string, b: string): string {
  return createTwoFilesPatch(labelA, labelB, a, b, undefined, undefined, { context: 3 }).replace(/^=+\n/, '')
}
