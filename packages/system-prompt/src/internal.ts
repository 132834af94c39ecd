/**
 * `dsh-system-prompt/internal`: what the other dsh packages share with this one but a plugin or a
 * harness does not need. No stability promise beyond the dsh packages of the same version.
 * @module
 */
export { SECTION_BANDS, getSectionOrder, getContextOrder } from './placements.js'
export type { PromptWarning, TemplatePlace } from './errors.js'
export { orderTools, toolOrderProblem, unregisteredTools, compareCodeUnits } from './tool-order.js'
export { renderSectionParts } from './render.js'
export { scanTemplate, RAW_OPEN, RAW_CLOSE, type TemplateToken, type TemplateVisitor } from './template.js'
export { deepFreeze } from './freeze.js'
export { templateVariables } from './interpolate.js'
export * as PromptErrors from './errors.js'
export { abortable } from './promises.js'
