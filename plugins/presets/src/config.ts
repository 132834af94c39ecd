/**
 * The `dsh-presets` configuration: known persona templates, the default template and the presets.
 * Shapes and types are checked here by schemastery; the rules between keys are checked by
 * `resolvePresets()`, whose errors name the preset and the key.
 * @module
 */
import z from 'schemastery'

/** Which tools a preset's agents may see. */
export interface PresetToolsConfig {
  /** Only these tools stay visible. */
  allow?: string[]
  /** These tools are hidden. */
  deny?: string[]
}

/** One preset as configured (or as an editor submits it). */
export interface PresetConfig {
  /** The preset id agents name in `create({ preset })`. */
  id: string
  /** Explicit persona text; wins over `template`. */
  persona?: string
  /** The id of a known persona template. */
  template?: string
  /** A persona suffix for this preset's agents (rendered last). */
  personaSuffix?: string
  /** The persona claims the whole prompt. */
  complete?: boolean
  /** `false` leaves the runtime context out of this preset's assemblies. */
  includeRuntimeContext?: boolean
  /** Tool restriction for this preset's agents. */
  tools?: PresetToolsConfig
}

/** Configuration of the `dsh-presets` plugin. */
export interface Config {
  /** Persona templates by id, merged over the built-in ones. */
  templates: Record<string, string>
  /** The template a preset gets when it names no persona, or names an unknown template. */
  default?: string
  /** The presets to mount. */
  presets: PresetConfig[]
}

const ToolsConfig: z<PresetToolsConfig> = z.object({
  allow: z.array(z.string())
    .description('Only these tools stay visible to the preset\'s agents (tool names). Empty or unset: no allow-list. Intersects with any other restriction on the chain.'),
  deny: z.array(z.string())
    .description('These tools are hidden from the preset\'s agents (tool names). Empty or unset: nothing is hidden.'),
})

/** The schemastery schema of one {@link PresetConfig}. */
export const PresetConfig: z<PresetConfig> = z.object({
  id: z.string().required()
    .description('The preset id: agents created with `preset: <id>` get this preset\'s scope as their parent.'),
  persona: z.string()
    .description('Explicit persona text (a strict `{{variable}}` template); it wins over `template`. Text equal to a known template is stored as a reference to it. Empty counts as unset.'),
  template: z.string()
    .description('The id of a known persona template (built-in or from `templates`). An unknown id falls back to `default`, or to the deployment persona, and is logged as a warning.'),
  personaSuffix: z.string()
    .description('Persona suffix for this preset\'s agents: section `deployment:persona-suffix`, rendered last. Empty counts as unset.'),
  complete: z.boolean().default(false)
    .description('The preset\'s persona claims the whole prompt: its agents get exactly the persona text, nothing else.'),
  includeRuntimeContext: z.boolean().default(true)
    .description('`false` leaves the runtime context out of this preset\'s assemblies (its agents get no snapshot); the contexts keep running for other agents.'),
  tools: ToolsConfig
    .description('Tool restriction for this preset\'s agents, applied in the preset\'s scope.'),
}) as any

/** The schemastery schema of {@link Config}; every key is described for config UIs. */
export const Config: z<Partial<Config>, Config> = z.object({
  templates: z.dict(z.string()).default({})
    .description('Persona templates by id, merged over the built-in `coder`, `planner` and `reviewer` (a config template with a built-in id replaces it). Each is a strict `{{variable}}` template.'),
  default: z.string()
    .description('The id of the template a preset gets when it names no persona or an unknown template. Unset: such presets keep the deployment persona (the `systemPrompt` service\'s `persona`).'),
  presets: z.array(PresetConfig).default([])
    .description('The named presets, each mounted as a standing scope that the agents created with it share.'),
}) as any
