/**
 * The published package's view of an assembly, for tests ported from it. A dsh assembly's entries carry
 * more than the published `{ name, order, text }`: `owner`, and `scope`, `band`, `complete`,
 * `interpolate` where set, and an assembly has `contexts`. They are ordinary fields (a listener may read
 * and copy them), so a ported test that deep-compares `assembly.sections` with published literals
 * compares `publishedAssembly(assembly)` instead.
 * @module
 */
import type { PromptAssembly, ToolSchema } from './types.js'

/** A section as the published package assembles it. */
export interface PublishedSection {
  name: string
  order: number
  text: string
}

/** The published `PromptAssembly`: `{ sections, tools, variables }`. */
export interface PublishedAssembly {
  sections: PublishedSection[]
  tools: ToolSchema[]
  variables: Record<string, string | undefined>
}

/**
 * `assembly` in the published shape: each section as `{ name, order, text }` (an order-less section a
 * listener added keeps no `order` key), the tools and the variables as they are, no `contexts`.
 */
export function publishedAssembly(assembly: PromptAssembly): PublishedAssembly {
  return {
    sections: assembly.sections.map((section) => (section.order === undefined
      ? { name: section.name, text: section.text } as PublishedSection
      : { name: section.name, order: section.order, text: section.text })),
    tools: [...assembly.tools],
    variables: { ...assembly.variables },
  }
}
