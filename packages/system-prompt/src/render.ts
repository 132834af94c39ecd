/**
 * The one render path: an assembly becomes the system prompt and the runtime-context snapshot, and
 * every rendered part keeps the assembled entry it came from (name, order, owner, layer, band). The
 * agent, the CLI, the benchmarks and the published helpers (`renderPrompt`, `renderContextSnapshot`, ...)
 * all go through {@link renderAssembly} or its two halves; nothing else joins rendered texts. Pure and
 * Cordis-free.
 * @module
 */
import { textTooLong, type TextKind } from './errors.js'
import { interpolate, interpolateRecorded, MAX_RENDERED_CHARS, sameValues, stillRendered, type RenderedText } from './interpolate.js'
import { kRenderMemo, readNotes, type RenderMemo, type RenderMemoHolder } from './notes.js'
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
  const sections: RenderedSection[] = []
  const system = renderSections(assembly, sections)
  const contexts = renderContextSections(assembly)
  return { system, sections, snapshot: joinContextSections(contexts), contexts }
}

/** The rendered sections of an assembly, in render order (bands honoured). */
export function renderSectionParts(assembly: Pick<PromptAssembly, 'sections' | 'variables'>): RenderedSection[] {
  const parts: RenderedSection[] = []
  renderSections(assembly, parts)
  return parts
}

/**
 * The system prompt of an assembly, exactly `renderAssembly(assembly).system`: the published signature,
 * on the same pass without collecting the parts.
 */
export function renderPrompt(assembly: Pick<PromptAssembly, 'sections' | 'variables'>): string {
  return renderSections(assembly, undefined)
}

/**
 * The one pass over the sections: interpolates each, drops the empty ones, keeps the `first` band
 * before and the `last` band after the rest (each in assembly order), and returns the joined system
 * prompt; with `parts`, also fills it with the rendered parts in the same order.
 *
 * An assembly `assemble()` returned carries its view's render memo: a section whose text, way of
 * rendering and referenced variable values are those of the same index in the last rendering of the
 * view reuses its rendered text, and when every section does (with the same bands), the prompt too.
 * Each entry's fields are read once (an assembly's entries come in many shapes, so every read costs).
 */
function renderSections(assembly: Pick<PromptAssembly, 'sections' | 'variables'>, parts: RenderedSection[] | undefined): string {
  const holder = memoHolder(assembly)
  const sections = assembly.sections
  const variables = assembly.variables
  const join = new BandedJoin(parts)
  // The joined prompt's length, checked before it is built (PROMPT_TEXT_TOO_LONG names the section that crosses the limit).
  let length = 0
  if (!holder) {
    for (const entry of sections) {
      const text = entry.interpolate === false ? entry.text : interpolate(entry.text, variables, 'section', entry.name)
      if (text && (length += text.length + 2) > MAX_RENDERED_CHARS + 2) throw textTooLong({ kind: 'section', entry: entry.name }, MAX_RENDERED_CHARS, null)
      if (text) join.add(text, entry.band, entry)
    }
    return join.result()
  }
  const memo = holder.memo
  // While every section matches the memo nothing is joined or kept; the first that does not starts the new memo.
  let same = memo !== undefined && memo.texts.length === sections.length
  // Each referenced variable looked up once: when none changed, a text is reused on its source alone.
  const valuesSame = memo !== undefined && sameValues(memo.names, memo.values, variables)
  let texts: RenderedText[] | undefined = same ? undefined : []
  let bands: (AssembledSection['band'])[] | undefined = same ? undefined : []
  for (let i = 0; i < sections.length; i++) {
    const entry = sections[i]
    const source = entry.text
    const interpolated = entry.interpolate !== false
    const band = entry.band
    const previous = memo?.texts[i]
    const rendered = stillRendered(previous, source, interpolated, variables, valuesSame)
      ? previous
      : interpolateRecorded(source, interpolated, variables, 'section', entry.name)
    if (same && (rendered !== previous || memo!.bands[i] !== band)) {
      same = false
      texts = memo!.texts.slice(0, i)
      bands = memo!.bands.slice(0, i)
      for (let j = 0; j < i; j++) {
        const text = texts[j].text
        if (text) {
          join.text(text, bands[j])
          length += text.length + 2
        }
      }
    }
    if (!same) {
      // While the sections match the memo their running length is the memo's, which was checked when it was made.
      if (rendered.text && (length += rendered.text.length + 2) > MAX_RENDERED_CHARS + 2) throw textTooLong({ kind: 'section', entry: entry.name }, MAX_RENDERED_CHARS, null)
      texts!.push(rendered)
      bands!.push(band)
      if (rendered.text) join.text(rendered.text, band)
    }
    if (parts && rendered.text) join.part(rendered.text, band, entry)
  }
  if (same) {
    // Nothing was joined: this only puts the parts in band order.
    join.result()
    return memo!.system
  }
  const system = join.result()
  holder.memo = memoOf(texts!, bands!, system, variables)
  return system
}

/**
 * Texts joined by one blank line in three bands (`first`, the rest, `last`), and their parts in the
 * same order when asked for.
 */
class BandedJoin {
  private head = ''
  private body = ''
  private tail = ''
  private headParts: RenderedSection[] | undefined
  private tailParts: RenderedSection[] | undefined

  constructor(private readonly parts: RenderedSection[] | undefined) {}

  /** A non-empty text and, with parts asked for, its part. */
  add(text: string, band: AssembledSection['band'], entry: AssembledSection): void {
    this.text(text, band)
    if (this.parts) this.part(text, band, entry)
  }

  /** A non-empty text, joined into its band. */
  text(text: string, band: AssembledSection['band']): void {
    if (band === undefined) this.body = this.body ? this.body + '\n\n' + text : text
    else if (band === 'first') this.head = this.head ? this.head + '\n\n' + text : text
    else this.tail = this.tail ? this.tail + '\n\n' + text : text
  }

  /** The part of a non-empty text (parts must have been asked for). */
  part(text: string, band: AssembledSection['band'], entry: AssembledSection): void {
    const part = { name: entry.name, text, entry }
    if (band === undefined) this.parts!.push(part)
    else if (band === 'first') (this.headParts ??= []).push(part)
    else (this.tailParts ??= []).push(part)
  }

  /** The joined prompt; the parts are put in band order. */
  result(): string {
    if (this.headParts) this.parts!.unshift(...this.headParts)
    if (this.tailParts) this.parts!.push(...this.tailParts)
    const body = this.head ? (this.body ? this.head + '\n\n' + this.body : this.head) : this.body
    return this.tail ? (body ? body + '\n\n' + this.tail : this.tail) : body
  }
}

function memoOf(texts: RenderedText[], bands: AssembledSection['band'][], system: string, variables: PromptAssembly['variables']): RenderMemo {
  const names: string[] = []
  for (const text of texts) for (const name of text.names) if (!names.includes(name)) names.push(name)
  return { texts, bands, system, names, values: names.map((name) => variables[name]) }
}

/** The render memo an assembly `assemble()` returned carries, if any. */
function memoHolder(assembly: object): RenderMemoHolder | undefined {
  const notes = readNotes<Record<symbol, RenderMemoHolder | undefined>>(assembly)
  return notes === undefined ? undefined : notes[kRenderMemo]
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

function renderParts<E extends AssembledContext>(entries: readonly E[], variables: PromptAssembly['variables'], kind: TextKind): RenderedPart<E>[] {
  const parts: RenderedPart<E>[] = []
  let length = RUNTIME_CONTEXT_HEADING.length
  for (const entry of entries) {
    const text = entry.interpolate === false ? entry.text : interpolate(entry.text, variables, kind, entry.name)
    if (text && (length += text.length + 2) > MAX_RENDERED_CHARS) throw textTooLong({ kind, entry: entry.name }, MAX_RENDERED_CHARS, null)
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
