/**
 * `dsh-system-prompt`: the `systemPrompt` Cordis service and the pure rendering functions. This root
 * export is what plugins and harnesses use; helpers shared with the other dsh packages live behind
 * `dsh-system-prompt/internal`.
 * @module
 */
import { SystemPrompt } from './system-prompt.js'

export { SystemPrompt, ASSEMBLE_EVENT, DEPLOYMENT_LOADED } from './system-prompt.js'
export { Config, DEFAULT_IDENTITY, type ResolvedConfig } from './config.js'
export {
  PERSONA_SECTION, PERSONA_PREFIX_SECTION, PERSONA_ORDER, PERSONA_SUFFIX_SECTION, PERSONA_SUFFIX_ORDER, IDENTITY_SECTION,
  SECTION_NAME_ALIASES,
  SECTION_PLACEMENTS, CONTEXT_PLACEMENTS, SECTION_PLACEMENT_ALIASES, CONTEXT_PLACEMENT_ALIASES,
  type SectionPlacementName, type ContextPlacementName,
} from './placements.js'
export { TOOL_ORDER_REST } from './tool-order.js'
export { assemblyNotes, waitingListener, type AssemblyNotes, type HiddenSection } from './assemble.js'
export type { ToolCheck } from './tool-check.js'
export type { ChangeAction, EntryChange, Provenance } from './provenance.js'
export {
  renderAssembly, renderPrompt, renderContextSections, renderContextSnapshot, joinContextSections,
  RUNTIME_CONTEXT_HEADING, RUNTIME_CONTEXT_NONE,
} from './render.js'
export type { RenderedContext, RenderedPart, RenderedPrompt, RenderedSection } from './render.js'
export { interpolate, MAX_RENDERED_CHARS } from './interpolate.js'
export type { VariableTable } from './interpolate.js'
export { validatePromptTemplate, type TemplateProblem, type TemplateProblemCode } from './template-check.js'
export { PromptError, VARIABLE_NAME, isVariableName } from './errors.js'
export { providerFailures } from './provider-failures.js'
export type { CodedError } from './errors.js'
export { publishedAssembly } from './published-shape.js'
export type { PublishedAssembly, PublishedContext, PublishedSection } from './published-shape.js'
export type { Inspection, InspectedText, InspectedVariable, EntryOrigin } from './registry.js'
export type {
  PromptSection, SectionBand, Volatility, CompactionSurvival, VariableOptions, PromptContext, PromptText, AssembleContext, AssembledSection, AssembledContext, ToolSchema,
  ToolProviderResult, ToolProvider, VariableProvider, PromptAssembly, PromptChangeEvent, AssembleListener, AssembleNext, HandedAssembly,
} from './types.js'

export default SystemPrompt
