/**
 * The published package's view of an assembly, for tests ported from it. The published package
 * assembles each section and runtime-context entry as `{ name, text }` (a section's `interpolate` when
 * its plugin set it): an order is what a plugin registers, not part of an assembled entry. A dsh entry
 * carries more: `order`, `owner`, and `scope`, `band`, `complete` where set. They are ordinary fields (a
 * listener may read and copy them), so a ported test that deep-compares an assembly's lists with
 * published literals compares `publishedAssembly(assembly)` instead.
 * @module
 */
import type { AssembledSection, PromptAssembly, ToolSchema } from './types.js'

/** A section as the published package assembles it. */
export interface PublishedSection {
  name: string
  text: string
  /** Present when the section's plugin set it (`false` keeps `{{…}}` literal). */
  interpolate?: boolean
}

/** A runtime-context entry as the published package assembles it. */
export interface PublishedContext {
  name: string
  text: string
}

/** The published `PromptAssembly`: `{ sections, contexts, tools, variables }`. */
export interface PublishedAssembly {
  sections: PublishedSection[]
  contexts: PublishedContext[]
  tools: ToolSchema[]
  variables: Record<string, string | undefined>
}

/**
 * `assembly` in the published shape: each section as `{ name, text }` (with `interpolate` where set),
 * each runtime-context entry as `{ name, text }`, the tools and the variables as they are. The lists and
 * the variables are copies; the tools are the assembly's own.
 */
export function publishedAssembly(assembly: PromptAssembly): PublishedAssembly {
  return {
    sections: assembly.sections.map(publishedSection),
    contexts: assembly.contexts.map(({ name, text }) => ({ name, text })),
    tools: [...assembly.tools],
    variables: { ...assembly.variables },
  }
}

function publishedSection({ name, text, interpolate }: AssembledSection): PublishedSection {
  return interpolate === undefined ? { name, text } : { name, text, interpolate }
}
