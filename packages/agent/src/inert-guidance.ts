/**
 * An inert tool's guidance stays until the next epoch (issue 21, item 4; R-TOOL-12). A tool
 * whose plugin is disposed, or that a restriction hides, stays declared and inert until the next epoch
 * (`tool-changes.ts`); the sections shown with it (`tool:` sections, its guidance) stay in the system
 * prompt with it, as the last request rendered them, byte for byte, in their place. So the prompt does
 * not change, and under `promptChange: 'append'` no new version is appended. At the epoch both leave.
 *
 * The kept text is the last rendered text, never rendered again: a disposed plugin's section has no
 * registration left, and a hidden tool's may render differently now. A section of the same name in the
 * assembly (the tool came back, or another plugin registered the name) wins over the kept one.
 * Pure and Cordis-free; the agent hands it each step's assembly and its inert tools.
 * @module
 */
import { assemblyNotes, type AssembledSection, type PromptAssembly, type RenderedSection } from 'dsh-system-prompt'
import type { ToolChange } from 'dsh-wire'

/** A section kept for an inert tool: the entry rendered in its place, its text the last rendered bytes (`interpolate: false`). */
export interface KeptSection {
  /** The inert tool it is shown with. */
  readonly tool: string
  readonly section: AssembledSection
}

/** A restored system-prompt version's section: its name, owner and text, and the tool it is shown with, if any. */
export interface RestoredSection {
  readonly name: string
  readonly owner: string | null
  readonly text: string
  readonly tool?: string
}

/** The sections the latest request rendered, and the tool each was shown with (a registered one's from the notes, a kept one's own). */
interface SentPrompt {
  readonly sections: readonly Pick<RenderedSection, 'name' | 'text' | 'entry'>[]
  readonly tools: ReadonlyMap<string, string>
  readonly kept: ReadonlyMap<string, string>
}

/** What one step keeps: the kept sections now in its assembly, and `commit` once its request is built. */
export interface GuidanceStep {
  /** The kept sections by tool (a tool with none has an empty list). */
  readonly kept: ReadonlyMap<string, readonly KeptSection[]>
  /** Names, on each inert change, the sections kept with its tool. */
  annotate(changes: readonly ToolChange[]): void
  /** Keeps what the request rendered: the next step captures and places kept sections from it. */
  commit(sections: readonly RenderedSection[], assembly: PromptAssembly): void
}

/** The tool each kept section object is kept for (the ledger's parts mark them: `ledger-parts.ts`). */
const KEPT_FOR = new WeakMap<AssembledSection, string>()

/** The inert tool `section` (an entry of an assembly) is kept for, or `undefined` for a registered section. */
export function keptFor(section: AssembledSection): string | undefined {
  return KEPT_FOR.get(section)
}

/** The names of the `declared` tools that `live` does not offer: the inert ones. */
export function inertTools(declared: readonly { readonly name: string }[], live: readonly { readonly name: string }[]): readonly string[] {
  if (declared.length === live.length && declared.every((tool, i) => tool.name === live[i].name)) return NO_NAMES
  const offered = new Set(live.map((tool) => tool.name))
  return declared.filter((tool) => !offered.has(tool.name)).map((tool) => tool.name)
}

/** An agent's kept sections, request by request. */
export class InertGuidance {
  private kept = new Map<string, readonly KeptSection[]>()
  private sent: SentPrompt | undefined

  /** `active`: the agent keeps removed tools inert (`toolChange.removed: 'inert'`); otherwise nothing is ever kept. */
  constructor(private readonly active: boolean) {}

  /**
   * The step's kept sections: those kept before whose tool is still not offered, and, for each tool in
   * `inert` (declared but no longer offered) not kept yet, the sections the latest request showed with
   * it. Puts them in `assembly` in their places (in place) and returns what to commit.
   */
  step(assembly: PromptAssembly, inert: readonly string[]): GuidanceStep {
    const kept = new Map<string, readonly KeptSection[]>()
    if (this.active && (this.kept.size || inert.length)) {
      const live = new Set(assembly.tools.map((tool) => tool.name))
      for (const [tool, sections] of this.kept) if (!live.has(tool)) kept.set(tool, sections)
      for (const tool of inert) if (!kept.has(tool)) kept.set(tool, this.capture(tool))
      this.place(assembly, kept)
    }
    return {
      kept,
      annotate: (changes) => {
        for (const change of changes) {
          const sections = change.handling === 'inert' ? kept.get(change.tool) : undefined
          if (sections?.length) change.kept = sections.map(({ section }) => ({ section: section.name, owner: section.owner ?? null }))
        }
      },
      commit: (sections, committed) => {
        this.kept = kept
        this.sent = { sections, tools: assemblyNotes(committed)?.sectionTools ?? NO_TOOLS, kept: byName(kept) }
      },
    }
  }

  /** Puts the kept sections in `assembly` as the latest request had them (a fork repeats that request). */
  show(assembly: PromptAssembly): PromptAssembly {
    if (!this.kept.size) return assembly
    const live = new Set(assembly.tools.map((tool) => tool.name))
    this.place(assembly, new Map([...this.kept].filter(([tool]) => !live.has(tool))))
    return assembly
  }

  /** The epoch: inert tools leave the declaration, and their sections the prompt. */
  openEpoch(): void {
    this.kept = new Map()
    this.sent = undefined
  }

  /**
   * A restored agent's candidates, from the latest system-prompt version of its ledger: each section
   * shown with a tool (its part's `tool`). A step keeps those whose tool it does not offer (the tool
   * went inert before the export, or went away meanwhile), as they were sent; the others leave at once.
   */
  restore(sections: readonly RestoredSection[]): void {
    if (!this.active) return
    const kept = new Map<string, KeptSection[]>()
    for (const part of sections) {
      if (part.tool === undefined) continue
      const section = keptSection(part.tool, { name: part.name, text: part.text, ...(part.owner === null ? {} : { owner: part.owner }) })
      kept.set(part.tool, [...kept.get(part.tool) ?? [], section])
    }
    this.kept = kept
    this.sent = { sections: sections.map((part) => ({ name: part.name, text: part.text, entry: { name: part.name, text: part.text } })), tools: NO_TOOLS, kept: byName(kept) }
  }

  /** The sections the latest request showed with `tool` (none when it showed none, or nothing was sent yet). */
  private capture(tool: string): readonly KeptSection[] {
    const sent = this.sent
    if (!sent) return []
    const found: KeptSection[] = []
    for (const part of sent.sections) {
      if ((sent.kept.get(part.name) ?? sent.tools.get(part.name)) !== tool) continue
      const { order, owner, scope, band } = part.entry
      found.push(keptSection(tool, {
        name: part.name, text: part.text, ...(order === undefined ? {} : { order }), ...(owner === undefined ? {} : { owner }),
        ...(scope === undefined ? {} : { scope }), ...(band === undefined ? {} : { band }),
      }))
    }
    return found
  }

  /**
   * Inserts each kept section whose name the assembly does not have, after the nearest section (of its
   * band) that preceded it in the latest request, else before the nearest that followed it, else by order.
   */
  private place(assembly: PromptAssembly, kept: ReadonlyMap<string, readonly KeptSection[]>): void {
    const present = new Set(assembly.sections.map((section) => section.name))
    const missing = [...kept.values()].flat().filter(({ section }) => !present.has(section.name))
    if (!missing.length) return
    const names = this.sent?.sections.map((part) => part.name) ?? []
    const rank = (section: AssembledSection) => { const at = names.indexOf(section.name); return at < 0 ? names.length : at }
    missing.sort((a, b) => rank(a.section) - rank(b.section))
    const out = [...assembly.sections]
    for (const { section } of missing) {
      const at = names.indexOf(section.name)
      const find = (name: string) => out.findIndex((other) => other.name === name && other.band === section.band)
      let index = -1
      for (let j = at - 1; at >= 0 && j >= 0 && index < 0; j--) { const i = find(names[j]); if (i >= 0) index = i + 1 }
      for (let j = at + 1; at >= 0 && j < names.length && index < 0; j++) index = find(names[j])
      if (index < 0) {
        index = out.findIndex((other) => bandRank(other) > bandRank(section) || (bandRank(other) === bandRank(section) && (other.order ?? 0) > (section.order ?? 0)))
        if (index < 0) index = out.length
      }
      out.splice(index, 0, section)
    }
    assembly.sections = out
  }
}

function keptSection(tool: string, fields: Omit<AssembledSection, 'interpolate'>): KeptSection {
  const section: AssembledSection = Object.freeze({ ...fields, interpolate: false })
  KEPT_FOR.set(section, tool)
  return { tool, section }
}

function byName(kept: ReadonlyMap<string, readonly KeptSection[]>): ReadonlyMap<string, string> {
  return new Map([...kept.values()].flat().map(({ tool, section }) => [section.name, tool]))
}

function bandRank(section: AssembledSection): number {
  return section.band === 'first' ? -1 : section.band === 'last' ? 1 : 0
}

const NO_TOOLS: ReadonlyMap<string, string> = new Map()
const NO_NAMES: readonly string[] = Object.freeze([])
