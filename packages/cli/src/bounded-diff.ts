/**
 * Unified diffs whose cost is bounded, for `diff` and `history`. jsdiff's Myers diff costs time about
 * (lines of A + lines of B) × (the number of edits), so two large texts that differ throughout cost
 * quadratic time (two 16,000-line personas took 87 s, two 181 KB prompt versions 40 s). Every diff here
 * stops after {@link MAX_DIFF_EDITS} line (or block) edits, jsdiff's `maxEditLength`; past it, a summary
 * takes the patch's place and says so. One place, so `diff` and `history` fall back the same way.
 * @module
 */
import { createTwoFilesPatch, diffArrays, type ArrayChange } from 'diff'
import { formatCount } from './table.js'

/** The most line edits (lines removed plus lines added) a unified diff is worked out for. */
export const MAX_DIFF_EDITS = 1000

/** A unified diff, or the summary that stands for one that would take more than {@link MAX_DIFF_EDITS} edits. */
export type BoundedPatch = { patch: string; summary?: undefined } | { patch?: undefined; summary: string }

/** A unified diff with three lines of context, without jsdiff's `===` banner; a summary past the bound. */
export function boundedPatch(labelA: string, labelB: string, a: string, b: string, maxEdits: number = MAX_DIFF_EDITS): BoundedPatch {
  const patch = createTwoFilesPatch(labelA, labelB, a, b, undefined, undefined, { context: 3, maxEditLength: maxEdits })
  if (patch !== undefined) return { patch: patch.replace(/^=+\n/, '') }
  return { summary: diffSummary(a, b, maxEdits) }
}

/** What stands for a line diff past the bound: how large each side is. */
export function diffSummary(a: string, b: string, maxEdits: number = MAX_DIFF_EDITS): string {
  const side = (text: string) => `${formatCount(lineCount(text))} lines, ${formatCount(Buffer.byteLength(text, 'utf8'))} bytes`
  return `no line diff: more than ${formatCount(maxEdits)} lines differ (A ${side(a)}; B ${side(b)})`
}

/** The changes from `a` to `b` as whole items, or `undefined` when they take more than `maxEdits` insertions and removals. */
export function boundedArrayDiff<T>(a: T[], b: T[], maxEdits: number = MAX_DIFF_EDITS): ArrayChange<T>[] | undefined {
  return diffArrays(a, b, { maxEditLength: maxEdits })
}

function lineCount(text: string): number {
  if (text === '') return 0
  let lines = 1
  for (let at = text.indexOf('\n'); at >= 0 && at < text.length - 1; at = text.indexOf('\n', at + 1)) lines++
  return lines
}
