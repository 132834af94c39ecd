/**
 * What the model reads: assembling through a context and rendering the result, and the sections a test
 * registered, told apart from the always-present persona pieces.
 * @module
 */
import type { Context } from 'cordis'
import {
  PERSONA_SECTION, PERSONA_SUFFIX_SECTION, renderContextSnapshot, renderPrompt, type AssembleContext,
} from 'dsh-system-prompt'

/** Assembles through `ctx` (which reads `systemPrompt`) and renders the system prompt. */
export async function promptText(ctx: Context, context?: AssembleContext): Promise<string> {
  return renderPrompt(await ctx.systemPrompt.assemble(context))
}

/** Assembles through `ctx` (which reads `systemPrompt`) and renders the runtime-context snapshot. */
export async function snapshotText(ctx: Context, context?: AssembleContext): Promise<string> {
  return renderContextSnapshot(await ctx.systemPrompt.assemble(context))
}

/** The names of the two persona pieces every assembly holds (empty by default, dropped at render). */
export const PERSONA_PIECES: readonly string[] = [PERSONA_SECTION, PERSONA_SUFFIX_SECTION]

/** The names of an assembly's sections without the persona pieces: what plugins and tests registered. */
export function ownSections(assembly: { sections: ReadonlyArray<{ name: string }> }): string[] {
  return assembly.sections.map((s) => s.name).filter((name) => !PERSONA_PIECES.includes(name))
}
