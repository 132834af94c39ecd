/**
 * Every error and warning message of `dsh-presets`, made in one place so tests and docs quote the
 * same strings. Config errors name the preset (or template) and the key at fault. Each error and
 * warning carries a stable `code` (`PRESETS_*`) and the `details` it is about; a warning is a
 * `{ code, message, details }` object whose `message` is what the log prints.
 * @module
 */

import { TOOL_NAME_RULE } from 'dsh-tools'

/**
 * A configuration the plugin refuses to load: `code` says which kind, `details` the fields it is about,
 * and `culprit` is the preset or template id at fault.
 */
export class PresetConfigError<C extends string = string, D extends object = object> extends Error {
  override name = 'PresetConfigError'
  constructor(message: string, readonly code: C, readonly details: D, readonly culprit?: string) {
    super(message)
  }
}

/** A warning or debug line of `dsh-presets`: what the log prints, with its code and fields. */
export interface PresetNotice<C extends string = string, D extends object = object> {
  readonly code: C
  readonly message: string
  readonly details: D
}

const quoteList = (names: readonly string[]) => names.map((n) => JSON.stringify(n)).join(', ')
const knownList = (names: readonly string[]) => names.length ? names.join(', ') : '(none)'

/** A preset at `presets[index]` whose id is not a non-empty string. */
export const invalidPresetId = (index: number, id: unknown) =>
  new PresetConfigError(`presets[${index}].id must be a non-empty string, received ${JSON.stringify(id) ?? String(id)}`, 'PRESETS_INVALID_ID' as const, { index, received: id })

/** Two presets with the same id. */
export const duplicatePresetId = (id: string) =>
  new PresetConfigError(`presets lists preset ${JSON.stringify(id)} more than once`, 'PRESETS_DUPLICATE_ID' as const, { preset: id }, id)

/** A configured template with an empty id. */
export const invalidTemplateId = (id: string) =>
  new PresetConfigError(`templates has an empty template id (ids are non-empty strings)`, 'PRESETS_INVALID_TEMPLATE_ID' as const, { template: id }, id)

/** A configured template without text. */
export const emptyTemplate = (id: string) =>
  new PresetConfigError(`template ${JSON.stringify(id)} is empty (a persona template needs text)`, 'PRESETS_EMPTY_TEMPLATE' as const, { template: id }, id)

/** A configured template that is not a valid prompt template; `problems` are the template checker's messages. */
export const templateSyntax = (id: string, problems: readonly string[]) =>
  new PresetConfigError(`template ${JSON.stringify(id)} is not a valid prompt template: ${problems.join('; ')}`, 'PRESETS_TEMPLATE_SYNTAX' as const, { template: id, problems }, id)

/** A preset's `persona` or `personaSuffix` that is not a valid prompt template. */
export const presetSyntax = (id: string, key: 'persona' | 'personaSuffix', problems: readonly string[]) =>
  new PresetConfigError(`preset ${JSON.stringify(id)} ${key} is not a valid prompt template: ${problems.join('; ')}`, 'PRESETS_PRESET_SYNTAX' as const, { preset: id, key, problems }, id)

/** A `default` naming no known template; `known` lists the template ids. */
export const unknownDefault = (id: string, known: readonly string[]) =>
  new PresetConfigError(`default names unknown persona template ${JSON.stringify(id)}; known templates: ${knownList(known)}`, 'PRESETS_UNKNOWN_DEFAULT' as const, { template: id, known }, id)

/** A preset that sets `complete` but has no persona to claim the prompt with. */
export const completeWithoutPersona = (id: string) =>
  new PresetConfigError(`preset ${JSON.stringify(id)} sets complete but has no persona to claim the prompt with (set persona or template, or a default template)`, 'PRESETS_COMPLETE_WITHOUT_PERSONA' as const, { preset: id }, id)

/** A preset that sets both `complete` and `personaSuffix` (the suffix could never render). */
export const suffixWithComplete = (id: string) =>
  new PresetConfigError(`preset ${JSON.stringify(id)} sets both complete and personaSuffix; a complete persona is the whole prompt, so the suffix would never render`, 'PRESETS_SUFFIX_WITH_COMPLETE' as const, { preset: id }, id)

/** A preset's `tools.allow` or `tools.deny` entry that is not a valid tool name. */
export const invalidToolName = (id: string, key: 'allow' | 'deny', name: string) =>
  new PresetConfigError(`preset ${JSON.stringify(id)} tools.${key} lists invalid tool name ${JSON.stringify(name)} (must match ${TOOL_NAME_RULE})`, 'PRESETS_INVALID_TOOL_NAME' as const, { preset: id, key, name }, id)

/** A tool name listed twice in one of a preset's `tools` lists. */
export const repeatedToolName = (id: string, key: 'allow' | 'deny', name: string) =>
  new PresetConfigError(`preset ${JSON.stringify(id)} tools.${key} lists ${JSON.stringify(name)} more than once`, 'PRESETS_REPEATED_TOOL_NAME' as const, { preset: id, key, name }, id)

/** Tool names a preset lists in both `tools.allow` and `tools.deny`. */
export const allowedAndDenied = (id: string, names: readonly string[]) =>
  new PresetConfigError(`preset ${JSON.stringify(id)} tools lists ${quoteList(names)} in both allow and deny`, 'PRESETS_ALLOWED_AND_DENIED' as const, { preset: id, names }, id)

/** `presets.validate(text)` was given something other than a string. */
export const invalidEditorText = (value: unknown) =>
  Object.assign(new TypeError(`presets.validate(text) needs the template text as a string, received ${typeof value}`), {
    code: 'PRESETS_INVALID_EDITOR_TEXT' as const, details: { received: typeof value },
  })

// ---- warnings (logged through ctx.logger('dsh-presets')) ----------------------------------------

/** The warning for a template reference no known template answers. */
export const unknownTemplateWarning = (
  id: string, reference: string, known: readonly string[], fallback: string | undefined, completeDropped: boolean,
) => ({
  code: 'PRESETS_UNKNOWN_TEMPLATE' as const,
  message: `preset ${JSON.stringify(id)} references unknown persona template ${JSON.stringify(reference)}; known templates: ${knownList(known)}; `
    + (fallback === undefined
      ? `falling back to the deployment persona${completeDropped ? ' (complete is not applied)' : ''}`
      : `falling back to the default template ${JSON.stringify(fallback)}`),
  details: { preset: id, template: reference, known, fallback, completeDropped },
})

/** The debug line for restriction names no registered tool answers yet. */
export const unresolvedToolsDebug = (id: string, names: readonly string[]) => ({
  code: 'PRESETS_UNRESOLVED_TOOLS' as const,
  message: `preset ${JSON.stringify(id)} tools name ${quoteList(names)}, not registered yet; the restriction covers them once they are`,
  details: { preset: id, names },
})
