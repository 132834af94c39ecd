/**
 * The one render path: an assembly becomes the system prompt and the runtime-context snapshot, and
 * every rendered part keeps the assembled entry it came from (name, order, owner, layer, band). The
 * agent, the CLI, the benchmarks and the published helpers (`renderPrompt`, `renderContextSnapshot`, ...)
 * all go through {@link renderAssembly} or its two halves; nothing else joins rendered texts. Pure and
 * Cordis-free.
 * @module
 */
import type { TextKind } from './errors.js'
import { interpolate } from './interpolate.js'
import type { AssembledContext, AssembledSection, PromptAssembly } from './types.js'

/** The first line of every runtime-context snapshot. */
export const RUNTIME_CONTEXT_HEADING = 'Current runtime context. This snapshot supersedes earlier runtime-context snapshots.'
/** The message recorded once when a snapshot existed and everything in it has been cleared. */
export const RUNTIME_CONTEXT_NONE = 'Current runtime context: none. Earlier runtime-context snapshots no longer apply.'

/** One rendered, non-empty section or context: its interpolated text and the assembled entry it came from. */
export interface RenderedPart<E extends AssembledSection | AssembledContext = AssembledSection | AssembledContext> {
  /** The entry's name (the same as `entry.name`). */
  readonly name: string
  /** The interpolated text; never empty. */
  readonly text: string
  /** The entry as it stood in the assembly: order, owner, layer, band. */
  readonly entry: E
}

/** A rendered section. */
export type RenderedSection = RenderedPart<AssembledSection>
/** A rendered runtime context. */
export type RenderedContext = RenderedPart<AssembledContext>

/** What one assembly renders to: what a request carries, with where each part came from. */
export interface RenderedPrompt {
  /** The system prompt: the sections' texts joined by one blank line (`''` when none has text). */
  readonly system: string
  /** The non-empty sections in render order. */
  readonly sections: readonly RenderedSection[]
  /** The runtime-context snapshot (`''` when no context has text). */
  readonly snapshot: string
  /** The non-empty contexts in order. */
  readonly contexts: readonly RenderedContext[]
}

/**
 * Renders an assembly: every section and context interpolated strictly (the first problem throws),
 * empty ones dropped, bands honoured (a `first` section before all others, a `last` one after them,
 * whatever a listener did to the order), sections joined by one blank line without trimming, the
 * contexts joined into the snapshot under its heading.
 */
export function renderAssembly(assembly: Pick<PromptAssembly, 'sections' | 'contexts' | 'variables'>): RenderedPrompt {
  const sections = renderSectionParts(assembly)
  const contexts = renderContextSections(assembly)
  return { system: joinTexts(sections), sections, snapshot: joinContextSections(contexts), contexts }
}

/** The rendered sections of an assembly, in render order (bands honoured). */
export function renderSectionParts(assembly: Pick<PromptAssembly, 'sections' | 'variables'>): RenderedSection[] {
  const parts = renderParts(assembly.sections, assembly.variables, 'section')
  return hasBand(parts) ? byBand(parts) : parts
}

/**
 * The system prompt of an assembly: {@link renderSectionParts} joined by one blank line. The published
 * signature; the agent and the CLI use {@link renderAssembly}, which returns the same text.
 */
export function renderPrompt(assembly: Pick<PromptAssembly, 'sections' | 'variables'>): string {
  return joinTexts(renderSectionParts(assembly))
}

/** Every context interpolated strictly, empty ones dropped, in assembly order. */
export function renderContextSections(assembly: Pick<PromptAssembly, 'contexts' | 'variables'>): RenderedContext[] {
  return renderParts(assembly.contexts, assembly.variables, 'context')
}

/**
 * The snapshot text for rendered contexts: the heading, a blank line, and the texts joined by blank
 * lines; `''` when there is none.
 */
export function joinContextSections(sections: ReadonlyArray<string | { text: string }>): string {
  const body = joinTexts(sections)
  return body ? RUNTIME_CONTEXT_HEADING + '\n\n' + body : ''
}

/** The runtime-context snapshot of an assembly (`''` when no context has text). */
export function renderContextSnapshot(assembly: Pick<PromptAssembly, 'contexts' | 'variables'>): string {
  return joinContextSections(renderContextSections(assembly))
}

function renderParts<E extends AssembledSection | AssembledContext>(entries: readonly E[], variables: PromptAssembly['variables'], kind: TextKind): RenderedPart<E>[] {
  const parts: RenderedPart<E>[] = []
  for (const entry of entries) {
    const text = entry.interpolate === false ? entry.text : interpolate(entry.text, variables, kind, entry.name)
    if (text) parts.push({ name: entry.name, text, entry })
  }
  return parts
}

/** The non-empty texts joined by one blank line. */
function joinTexts(parts: ReadonlyArray<string | { text: string }>): string {
  let out = ''
  for (const part of parts) {
    const text = typeof part === 'string' ? part : part.text
    if (text) out = out ? out + '\n\n' + text : text
  }
  return out
}

function hasBand(parts: readonly RenderedSection[]): boolean {
  for (const part of parts) if (part.entry.band !== undefined) return true
  return false
}

/** A stable partition: `first` band, then unbanded, then `last` band, each in the order given. */
function byBand(parts: readonly RenderedSection[]): RenderedSection[] {
  const first: RenderedSection[] = []
  const middle: RenderedSection[] = []
  const last: RenderedSection[] = []
  for (const part of parts) (part.entry.band === 'first' ? first : part.entry.band === 'last' ? last : middle).push(part)
  return [...first, ...middle, ...last]
}
