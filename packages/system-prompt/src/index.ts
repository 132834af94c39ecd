/**
 * `dsh-system-prompt`: the `systemPrompt` Cordis service and the pure rendering functions.
 * @module
 */
import { SystemPrompt } from './service.js'

export { SystemPrompt, ASSEMBLE_EVENT, DEPLOYMENT_LOADED, markNoShadow } from './service.js'
export { Config, DEFAULT_IDENTITY } from './config.js'
export {
  PERSONA_SECTION, PERSONA_ORDER, PERSONA_SUFFIX_SECTION, PERSONA_SUFFIX_ORDER, IDENTITY_SECTION,
  SECTION_PLACEMENTS, CONTEXT_PLACEMENTS, getSectionOrder, getContextOrder,
} from './placements.js'
export { TOOL_ORDER_REST, orderTools, toolOrderProblem, checkToolOrder, compareCodeUnits } from './tool-order.js'
export {
  renderPrompt, renderSections, renderContextSections, renderContextSnapshot, joinContextSections,
  RUNTIME_CONTEXT_HEADING, RUNTIME_CONTEXT_NONE,
} from './render.js'
export type { RenderedContext, RenderedSection } from './render.js'
export { interpolate } from './interpolate.js'
export type { VariableTable } from './interpolate.js'
export { validatePromptTemplate, type TemplateProblem, type TemplateProblemCode } from './template-check.js'
export { PromptError, VARIABLE_NAME, isVariableName } from './errors.js'
export type { CodedError, PromptWarning, TemplatePlace } from './errors.js'
export type { Inspection, InspectedText, InspectedVariable, EntryOrigin } from './registry.js'
export * as PromptErrors from './errors.js'
export { deepFreeze } from './freeze.js'
export type {
  PromptSection, PromptContext, PromptText, AssembleContext, AssembledSection, AssembledContext, ToolSchema,
  ToolProviderResult, ToolProvider, VariableProvider, PromptAssembly, PromptChangeEvent, AssembleListener, AssembleNext,
} from './types.js'

export default SystemPrompt
