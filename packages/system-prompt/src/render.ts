/**
 * Rendering an assembly into the texts a request carries. Pure and Cordis-free.
 * @module
 */
import { interpolate } from './interpolate.js'
import { PERSONA_SUFFIX_SECTION } from './placements.js'
import type { AssembledContext, AssembledSection, PromptAssembly } from './types.js'

/** The first line of every runtime-context snapshot. */
export const RUNTIME_CONTEXT_HEADING = 'Current runtime context. This snapshot supersedes earlier runtime-context snapshots.'
/** The message recorded once when a snapshot existed and everything in it has been cleared. */
export const RUNTIME_CONTEXT_NONE = 'Current runtime context: none. Earlier runtime-context snapshots no longer apply.'

/** A rendered runtime context: its name and interpolated, non-empty text. */
export interface RenderedContext {
  name: string
  text: string
}

/** A rendered section: its name and interpolated, non-empty text, in render order. */
export interface RenderedSection {
  name: string
  text: string
}

/**
 * Interpolates each section, drops the ones that are empty afterwards, puts the persona suffix last,
 * and returns them in render order. `renderPrompt` joins this list.
 */
export function renderSections(assembly: Pick<PromptAssembly, 'sections' | 'variables'>): RenderedSection[] {
  const rendered: RenderedSection[] = []
  let suffix: RenderedSection | undefined
  for (const section of assembly.sections) {
    const text = renderText(section, assembly.variables, 'section')
    if (!text) continue
    if (section.name === PERSONA_SUFFIX_SECTION) suffix = { name: section.name, text }
    else rendered.push({ name: section.name, text })
  }
  if (suffix) rendered.push(suffix)
  return rendered
}

/**
 * The system prompt: every section interpolated strictly, empty ones dropped, joined by one blank line
 * (no trimming), with the persona suffix last. Throws on the first interpolation problem.
 */
export function renderPrompt(assembly: Pick<PromptAssembly, 'sections' | 'variables'>): string {
  let out = ''
  let suffix = ''
  for (const section of assembly.sections) {
    const text = renderText(section, assembly.variables, 'section')
    if (!text) continue
    if (section.name === PERSONA_SUFFIX_SECTION) suffix = text
    else out = out ? out + '\n\n' + text : text
  }
  if (suffix) out = out ? out + '\n\n' + suffix : suffix
  return out
}

/** Every context interpolated strictly, empty ones dropped, in assembly order. */
export function renderContextSections(assembly: Pick<PromptAssembly, 'contexts' | 'variables'>): RenderedContext[] {
  const rendered: RenderedContext[] = []
  for (const context of assembly.contexts) {
    const text = renderText(context, assembly.variables, 'context')
    if (text) rendered.push({ name: context.name, text })
  }
  return rendered
}

/**
 * The snapshot text for rendered contexts: the heading, a blank line, and the texts joined by blank
 * lines; `''` when there is none.
 */
export function joinContextSections(sections: ReadonlyArray<string | { text: string }>): string {
  let body = ''
  for (const section of sections) {
    const text = typeof section === 'string' ? section : section.text
    if (!text) continue
    body = body ? body + '\n\n' + text : text
  }
  return body ? RUNTIME_CONTEXT_HEADING + '\n\n' + body : ''
}

/** The runtime-context snapshot of an assembly (`''` when no context has text). */
export function renderContextSnapshot(assembly: Pick<PromptAssembly, 'contexts' | 'variables'>): string {
  return joinContextSections(renderContextSections(assembly))
}

function renderText(entry: AssembledSection | AssembledContext, variables: PromptAssembly['variables'], kind: 'section' | 'context'): string {
  return entry.interpolate === false ? entry.text : interpolate(entry.text, variables, kind, entry.name)
}
