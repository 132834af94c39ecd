import type { AssembleContext, Config, PromptAssembly } from 'dsh-system-prompt'

// The helpers every package shares (bootApp, pluginContext, scope, rejection, thrown, recordChanges,
// promptText, snapshotText, ownSections) come from `dsh-testing`; these are about assemblies alone.

/** A deployment without the identity line, so assemblies hold only what a test registers (plus the persona pieces). */
export const BARE: Partial<Config> = { includeHarnessIdentity: false }

/** The names of an assembly's sections, in order. */
export const sectionNames = (assembly: PromptAssembly) => assembly.sections.map((s) => s.name)
/** The names of an assembly's runtime-context entries, in order. */
export const contextNames = (assembly: PromptAssembly) => assembly.contexts.map((c) => c.name)
/** The names of an assembly's tools, in order. */
export const toolNames = (assembly: PromptAssembly) => assembly.tools.map((t) => t.name)

/** `name=text` of each section, in assembly order. */
export const sectionTexts = (assembly: PromptAssembly) => assembly.sections.map((s) => `${s.name}=${s.text}`)

/** A counter-backed text provider: how many times the service evaluated it. */
export function counted(text: string): { (context?: AssembleContext): string; calls: number } {
  const provider = Object.assign(() => { provider.calls++; return text }, { calls: 0 })
  return provider
}
