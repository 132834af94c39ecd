/**
 * The parts of a recorded system-prompt version (R-LEDGER-7): for each rendered section its name, owner,
 * layer, byte range in the version's text and hashes (of its text, of its template, of the values of the
 * variables its template uses). A step computes them from the assembly when it records a new version;
 * the ledger writes them on the version's line; the reuse report and `history` find the section that
 * changed between two versions from them alone ({@link firstSectionBreak}).
 *
 * The parts of an entry are kept beside the record (a `WeakMap` keyed by the frozen entry), so the
 * record's entries stay what `dsh-wire` lowers. Pure apart from that map; Cordis-free.
 * @module
 */
import { createHash } from 'node:crypto'
import { assemblyNotes, type PromptAssembly, type RenderedPrompt } from 'dsh-system-prompt'
import { templateVariables } from 'dsh-system-prompt/internal'
import type { ScopeKey } from 'dsh-scope'
import type { ConversationEntry } from 'dsh-wire'
import { keptFor } from './inert-guidance.js'

/** One section of a recorded system-prompt version, as the ledger writes it (keys in this order). */
export interface PromptPart {
  /** The section's name. */
  name: string
  /** The plugin that registered it, or the listener that last changed it (`null` when neither is known). */
  owner: string | null
  /** Its layer: `global`, or the label of its scope (`agent:main`, `preset:reviewer`). */
  layer: string
  /** Where its text starts in the version's text, in UTF-8 bytes. */
  start: number
  /** Where its text ends (exclusive), in UTF-8 bytes. */
  end: number
  /** SHA-256 (hex) of its rendered text. */
  hash: string
  /** SHA-256 (hex) of its template (the registered text, before `{{variables}}` are filled in). */
  template: string
  /** The variables its template uses, in order, each with the SHA-256 (hex) of its value (`null`: no value). Absent when it uses none. */
  variables?: Array<[string, string | null]>
  /**
   * The tool the section is shown with (`tool:`, a tool's guidance), or for a section kept for an inert
   * tool, that tool (`inert-guidance.ts`): a restored agent keeps it while the tool is not offered. Absent for other sections.
   */
  tool?: string
}

/** Where two versions first differ, by section (R-CACHE-2's section break without the message index). */
export interface SectionBreak {
  kind: 'section'
  section: string
  owner: string | null
  layer: string
  cause: string
}

/** SHA-256 (hex) of a text. */
export function textHash(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}

const partsOfEntry = new WeakMap<ConversationEntry, readonly PromptPart[]>()
const partsOfRender = new WeakMap<RenderedPrompt, readonly PromptPart[]>()

/** The parts recorded with a system-prompt entry, or `undefined` when it has none (a ledger of format version 1, an entry made elsewhere). */
export function entryParts(entry: ConversationEntry): readonly PromptPart[] | undefined {
  return partsOfEntry.get(entry)
}

/** Keeps `parts` with the system-prompt entry `entry` (a step that recorded it, or a restore that read them). */
export function keepEntryParts(entry: ConversationEntry, parts: readonly PromptPart[]): void {
  partsOfEntry.set(entry, parts)
}

/**
 * The parts of a rendering (made once per rendering): `layerOf` names a section's scope (the agent's
 * context knows the labels). The owner is the listener that changed the section when one did (the
 * assembly's provenance notes), else the plugin that registered it, as the reuse report names it.
 */
export function promptParts(rendered: RenderedPrompt, assembly: PromptAssembly, layerOf: (scope: ScopeKey | undefined) => string): readonly PromptPart[] {
  const known = partsOfRender.get(rendered)
  if (known) return known
  const notes = assemblyNotes(assembly)
  const parts: PromptPart[] = []
  let start = 0
  for (const section of rendered.sections) {
    const end = start + Buffer.byteLength(section.text, 'utf8')
    const entry = section.entry
    const change = notes?.provenance.sections.get(section.name)
    const part: PromptPart = {
      name: section.name, owner: change ? change.by : entry.owner ?? null, layer: layerOf(entry.scope), start, end, hash: textHash(section.text), template: textHash(entry.text),
    }
    const names = entry.interpolate === false ? [] : templateVariables(entry.text)
    if (names.length) {
      part.variables = names.map((name) => {
        const value = assembly.variables[name]
        return [name, value === undefined || value === null ? null : textHash(String(value))]
      })
    }
    const tool = keptFor(entry) ?? notes?.sectionTools.get(section.name)
    if (tool !== undefined) part.tool = tool
    parts.push(Object.freeze(part))
    start = end + 2
  }
  Object.freeze(parts)
  partsOfRender.set(rendered, parts)
  return parts
}

/**
 * The first section where version `b` differs from version `a`, walking both in order: a section
 * added, removed, whose template used a variable whose value changed, whose text changed, or moved.
 * `undefined` when every section reads the same (or both are empty). The one rule for "which section
 * broke the prefix": the reuse report and the ledger's `history` both use it.
 */
export function firstSectionBreak(a: readonly PromptPart[], b: readonly PromptPart[]): SectionBreak | undefined {
  const namesA = new Set(a.map((part) => part.name))
  const namesB = new Set(b.map((part) => part.name))
  const origin = (part: PromptPart) => ({ kind: 'section' as const, section: part.name, owner: part.owner, layer: part.layer })
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i]
    const y = b[i]
    if (x && y && x.name === y.name && x.hash === y.hash) continue
    if (y && !namesA.has(y.name)) return { ...origin(y), cause: `section added: "${y.name}"` }
    if (x && !namesB.has(x.name)) return { ...origin(x), cause: `section removed: "${x.name}"` }
    if (x && y && x.name === y.name) {
      const changed = changedVariable(x, y)
      if (changed !== undefined) return { ...origin(y), cause: `variable value changed ({{${changed}}}) in section "${y.name}"` }
      return { ...origin(y), cause: `section text changed: "${y.name}"` }
    }
    const part = (y ?? x)!
    return { ...origin(part), cause: `order changed: "${part.name}" moved` }
  }
  return undefined
}

/** The first variable of `after`'s template whose value differs from `before`'s, when the template itself did not change. */
function changedVariable(before: PromptPart, after: PromptPart): string | undefined {
  if (before.template !== after.template) return undefined
  const valuesBefore = new Map(before.variables ?? [])
  for (const [name, value] of after.variables ?? []) if (valuesBefore.get(name) !== value) return name
  return undefined
}

/** The text of `part` in its version's text `content` (cut at its byte range). */
export function partText(content: string, part: PromptPart): string {
  return Buffer.from(content, 'utf8').subarray(part.start, part.end).toString('utf8')
}
