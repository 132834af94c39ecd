/**
 * `history` between two system-prompt versions that record their parts (ledger format version 2):
 * sections matched by name, each with its owner and layer (and what they were, when they changed), a
 * bounded unified diff of each changed section's text, and the cache break recomputed from the parts
 * alone with the reuse report's own rule (`firstSectionBreak`). Pure; the printing is `history.ts`'s.
 * @module
 */
import { firstSectionBreak, partText, type LedgerLine, type PromptPart, type SectionBreak } from 'dsh-agent'
import { boundedPatch } from '../bounded-diff.js'

/** How one section of a version relates to the version before it. */
export interface PartChange {
  /** `moved`: the same text, in another place among the sections both versions have. */
  kind: 'unchanged' | 'changed' | 'added' | 'removed' | 'moved'
  section: string
  owner: string | null
  layer: string
  /** The 1-based place of the section in the earlier version, `null` for an added one. */
  from: number | null
  /** The 1-based place in the later version, `null` for a removed one. */
  to: number | null
  /** The owner and layer in the earlier version, when either differs. */
  was?: { owner: string | null; layer: string }
  /** A unified diff of the section's text (`changed`, `added`, `removed`), unless more lines differ than a diff is worked out for. */
  patch?: string
  /** In the patch's place past the bound: says so, and how large each side is. */
  summary?: string
}

/** Whether both versions record their parts (then they are compared by them). */
export function comparableByParts(a: LedgerLine | undefined, b: LedgerLine): boolean {
  return a !== undefined && a.sections !== undefined && b.sections !== undefined
}

/** The cache break between two versions that record their parts: the first section that differs, or `null`. */
export function versionBreak(a: LedgerLine, b: LedgerLine): SectionBreak | null {
  return firstSectionBreak(a.sections!, b.sections!) ?? null
}

/** The section-by-section changes from version `a` to `b` (both with parts): `b`'s sections in order, then those `a` had and `b` has not. */
export function partChanges(a: LedgerLine, b: LedgerLine): PartChange[] {
  const before = a.sections!
  const after = b.sections!
  const textA = a.content as string
  const textB = b.content as string
  const byName = new Map(before.map((part, index) => [part.name, { part, index }]))
  const names = new Set(after.map((part) => part.name))
  // The places among the sections both versions have: a section whose place differs moved.
  const commonA = before.filter((part) => names.has(part.name)).map((part) => part.name)
  const commonB = after.filter((part) => byName.has(part.name)).map((part) => part.name)
  const label = (version: number, part: PromptPart | undefined) => part ? `v${version} ${part.name}` : `v${version} (none)`
  const patch = (x: PromptPart | undefined, y: PromptPart | undefined) => {
    const left = x ? partText(textA, x) + '\n' : ''
    const right = y ? partText(textB, y) + '\n' : ''
    return boundedPatch(label(a.promptVersion, x), y ? label(b.promptVersion, y) : `v${b.promptVersion} (removed)`, left, right)
  }
  const changes: PartChange[] = after.map((part, index) => {
    const earlier = byName.get(part.name)
    const base = { section: part.name, owner: part.owner, layer: part.layer, to: index + 1 }
    if (!earlier) return { kind: 'added', ...base, from: null, ...patch(undefined, part) }
    const was = earlier.part.owner !== part.owner || earlier.part.layer !== part.layer ? { was: { owner: earlier.part.owner, layer: earlier.part.layer } } : {}
    const at = { ...base, from: earlier.index + 1, ...was }
    if (earlier.part.hash !== part.hash) return { kind: 'changed', ...at, ...patch(earlier.part, part) }
    return { kind: commonA.indexOf(part.name) === commonB.indexOf(part.name) ? 'unchanged' : 'moved', ...at }
  })
  before.forEach((part, index) => {
    if (!names.has(part.name)) changes.push({ kind: 'removed', section: part.name, owner: part.owner, layer: part.layer, from: index + 1, to: null, ...patch(part, undefined) })
  })
  return changes
}

/** A section's owner and layer in words: `owner dsh-system-prompt, layer global`. */
export function describeOrigin(origin: { owner: string | null; layer: string | null }): string {
  return `owner ${origin.owner ?? '(unknown)'}, layer ${origin.layer ?? '(unknown)'}`
}
