/**
 * Every error and warning message of `dsh-presets`, made in one place so tests and docs quote the
 * same strings. Config errors name the preset (or template) and the key at fault.
 * @module
 */

import { TOOL_NAME_RULE } from 'dsh-tools'

/** A configuration the plugin refuses to load; `culprit` is the preset or template id at fault. */
export class PresetConfigError extends Error {
  override name = 'PresetConfigError'
  constructor(message: string, readonly culprit?: string) {
    super(message)
  }
}

const quoteList = (names: readonly string[]) => names.map((n) => JSON.stringify(n)).join(', ')
const knownList = (names: readonly string[]) => names.length ? names.join(', ') : '(none)'

/** A preset at `presets[index]` whose id is not a non-empty string. */
export const invalidPresetId = (index: number, id: unknown) =>
  new PresetConfigError(`presets[${index}].id must be a non-empty string, received ${JSON.stringify(id) ?? String(id)}`)

/** Two presets with the same id. */
export const duplicatePresetId = (id: string) =>
  new PresetConfigError(`presets lists preset ${JSON.stringify(id)} more than once`, id)

/** A configured template with an empty id. */
export const invalidTemplateId = (id: string) =>
  new PresetConfigError(`templates has an empty template id (ids are non-empty strings)`, id)

/** A configured template without text. */
export const emptyTemplate = (id: string) =>
  new PresetConfigError(`template ${JSON.stringify(id)} is empty (a persona template needs text)`, id)

/** A configured template that is not a valid prompt template; `problems` are the template checker's messages. */
export const templateSyntax = (id: string, problems: readonly string[]) =>
  new PresetConfigError(`template ${JSON.stringify(id)} is not a valid prompt template: ${problems.join('; ')}`, id)

/** A preset's `persona` or `personaSuffix` that is not a valid prompt template. */
export const presetSyntax = (id: string, key: 'persona' | 'personaSuffix', problems: readonly string[]) =>
  new PresetConfigError(`preset ${JSON.stringify(id)} ${key} is not a valid prompt template: ${problems.join('; ')}`, id)

/** A `default` naming no known template; `known` lists the template ids. */
export const unknownDefault = (id: string, known: readonly string[]) =>
  new PresetConfigError(`default names unknown persona template ${JSON.stringify(id)}; known templates: ${knownList(known)}`, id)

/** A preset that sets `complete` but has no persona to claim the prompt with. */
export const completeWithoutPersona = (id: string) =>
  new PresetConfigError(`preset ${JSON.stringify(id)} sets complete but has no persona to claim the prompt with (set persona or template, or a default template)`, id)

/** A preset that sets both `complete` and `personaSuffix` (the suffix could never render). */
export const suffixWithComplete = (id: string) =>
  new PresetConfigError(`preset ${JSON.stringify(id)} sets both complete and personaSuffix; a complete persona is the whole prompt, so the suffix would never render`, id)

/** A preset's `tools.allow` or `tools.deny` entry that is not a valid tool name. */
export const invalidToolName = (id: string, key: 'allow' | 'deny', name: string) =>
  new PresetConfigError(`preset ${JSON.stringify(id)} tools.${key} lists invalid tool name ${JSON.stringify(name)} (must match ${TOOL_NAME_RULE})`, id)

/** A tool name listed twice in one of a preset's `tools` lists. */
export const repeatedToolName = (id: string, key: 'allow' | 'deny', name: string) =>
  new PresetConfigError(`preset ${JSON.stringify(id)} tools.${key} lists ${JSON.stringify(name)} more than once`, id)

/** Tool names a preset lists in both `tools.allow` and `tools.deny`. */
export const allowedAndDenied = (id: string, names: readonly string[]) =>
  new PresetConfigError(`preset ${JSON.stringify(id)} tools lists ${quoteList(names)} in both allow and deny`, id)

/** `presets.validate(text)` was given something other than a string. */
export const invalidEditorText = (value: unknown) =>
  new TypeError(`presets.validate(text) needs the template text as a string, received ${typeof value}`)

// ---- warnings (logged through ctx.logger('dsh-presets')) ----------------------------------------

/** The warning for a template reference no known template answers. */
export const unknownTemplateWarning = (
  id: string, reference: string, known: readonly string[], fallback: string | undefined, completeDropped: boolean,
) => `preset ${JSON.stringify(id)} references unknown persona template ${JSON.stringify(reference)}; known templates: ${knownList(known)}; `
  + (fallback === undefined
    ? `falling back to the deployment persona${completeDropped ? ' (complete is not applied)' : ''}`
    : `falling back to the default template ${JSON.stringify(fallback)}`)

/** The debug line for restriction names no registered tool answers yet. */
export const unresolvedToolsDebug = (id: string, names: readonly string[]) =>
  `preset ${JSON.stringify(id)} tools name ${quoteList(names)}, not registered yet; the restriction covers them once they are`
