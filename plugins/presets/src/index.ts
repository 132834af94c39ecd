/**
 * `dsh-presets`: named agent presets from config, each mounted as a standing scope with its persona
 * (text or a reference to a known template), persona suffix, runtime-context switch and tool
 * restriction; plus `validatePromptTemplate`, the save-time template check of `dsh-system-prompt`.
 * @module
 */
import { Presets } from './service.js'

export { Presets } from './service.js'
export { Config, PresetConfig } from './config.js'
export type { PresetToolsConfig } from './config.js'
export { resolvePresets, storePreset, syntaxProblems } from './resolve.js'
export type { PersonaSource, PresetCatalog, ResolvedPersona, ResolvedPreset, StoredPreset } from './resolve.js'
export { BUILTIN_TEMPLATES, CODER_TEMPLATE, PLANNER_TEMPLATE, REVIEWER_TEMPLATE } from './templates.js'
export { PresetRestriction } from './restriction.js'
export type { RestrictionOptions } from './restriction.js'
export { PresetConfigError } from './errors.js'
export type { PresetNotice } from './errors.js'
export * as PresetErrors from './errors.js'
export { validatePromptTemplate } from 'dsh-system-prompt'
export type { TemplateProblem, TemplateProblemCode } from 'dsh-system-prompt'

export default Presets
