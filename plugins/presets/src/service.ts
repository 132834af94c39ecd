import { Context, Service } from 'cordis'
import {
  PERSONA_SECTION, PERSONA_SUFFIX_ORDER, PERSONA_SUFFIX_SECTION, validatePromptTemplate, type SystemPrompt,
  type TemplateProblem,
} from 'dsh-system-prompt'
import type {} from 'dsh-agent'
import { Config, type PresetConfig } from './config.js'
import { invalidEditorText, unresolvedToolsDebug, type PresetNotice } from './errors.js'
import { PresetRestriction } from './restriction.js'
import { resolvePresets, storePreset, type PresetCatalog, type ResolvedPreset, type StoredPreset } from './resolve.js'

declare module 'cordis' {
  interface Context {
    presets: Presets
  }
}

/**
 * The `dsh-presets` plugin and its `presets` service. It mounts every configured preset as a standing
 * scope through `ctx.agents.definePreset(id)` and registers there the preset's persona (shadowing the
 * deployment persona for that preset's agents), its persona suffix, its runtime-context switch and its
 * tool restriction. Everything it mounts lives as long as the plugin: disposing it takes the presets'
 * registrations away, and agents created with them fall back to the deployment's text.
 *
 * The service lets an editor or CLI read what was mounted (`get`, `ids`, `templates`), compute the
 * stored form of an edited preset (`store`) and check a template on save (`validate`).
 */
export class Presets extends Service {
  static inject = ['systemPrompt', 'agents']
  static Config = Config
  declare ctx: Context
  /** What the config resolved to: the known templates, the default and the presets. */
  readonly catalog: PresetCatalog
  private readonly unresolved = new Map<string, readonly string[]>()
  private readonly prompt: SystemPrompt

  constructor(ctx: Context, config: Config) {
    // Everything is checked before anything is registered, so a refused config leaves nothing behind.
    const catalog = resolvePresets(config)
    super(ctx, 'presets')
    this.catalog = catalog
    this.prompt = ctx.systemPrompt
    const logger = ctx.logger('dsh-presets')
    for (const preset of catalog.presets) {
      for (const warning of preset.warnings) logger.warn('%s', warning.message)
    }
    for (const preset of catalog.presets) this.mount(preset, (notice) => logger.debug('%s', notice.message))
  }

  /** A mounted preset by id (its stored form, resolved persona, switches and warnings). */
  get(id: string): ResolvedPreset | undefined {
    return this.catalog.presets.find((preset) => preset.id === id)
  }

  /** The mounted preset ids, in config order. */
  ids(): string[] {
    return this.catalog.presets.map((preset) => preset.id)
  }

  /** Every known persona template by id (built-in ones with the configured ones merged over them). */
  get templates(): Readonly<Record<string, string>> {
    return this.catalog.templates
  }

  /** The stored form of an edited preset against the known templates: `template: <id>` for unchanged template text. */
  store(entry: PresetConfig): StoredPreset {
    return storePreset(entry, this.catalog.templates, this.catalog.default)
  }

  /**
   * Checks a persona text on save: every problem, with its position, against the variables the
   * deployment registers globally right now (`model`, `provider`, `cwd` and whatever plugins add), as
   * read from a global assembly (so a deployment whose assembly fails rejects with that failure).
   */
  async validate(text: string): Promise<TemplateProblem[]> {
    if (typeof text !== 'string') throw invalidEditorText(text)
    const { variables } = await this.prompt.assemble()
    return validatePromptTemplate(text, Object.keys(variables))
  }

  /**
   * The configured tool names of a preset's restriction that no registered tool answers yet (they
   * restrict nothing until a tool of that name is registered). All of them while the tools service is absent.
   */
  unresolvedTools(id: string): readonly string[] {
    return this.unresolved.get(id) ?? []
  }

  private mount(preset: ResolvedPreset, debug: (notice: PresetNotice) => void): void {
    const handle = this.ctx.agents.definePreset(preset.id)
    const prompt = handle.ctx.systemPrompt
    if (preset.persona.text !== undefined) {
      prompt.section({
        name: PERSONA_SECTION,
        order: prompt.getSectionOrder(PERSONA_SECTION),
        text: preset.persona.text,
        ...preset.complete && { complete: true },
      })
    }
    if (preset.personaSuffix !== undefined) {
      prompt.section({ name: PERSONA_SUFFIX_SECTION, order: PERSONA_SUFFIX_ORDER, text: preset.personaSuffix })
    }
    if (!preset.includeRuntimeContext) prompt.suppressRuntimeContext()
    const tools = preset.tools
    if (tools) {
      this.unresolved.set(preset.id, [...tools.allow ?? [], ...tools.deny ?? []])
      handle.ctx.plugin(PresetRestriction, {
        ...tools,
        unresolved: (names: readonly string[]) => {
          this.unresolved.set(preset.id, names)
          if (names.length) debug(unresolvedToolsDebug(preset.id, names))
        },
      })
    }
  }
}

// The plugin's name, as Cordis names its fiber: the package's name, so every owner of what the service
// registers itself reads the same in a step's report, `explain`, events and the ledger (issue 24).
Object.defineProperty(Presets, 'name', { value: 'dsh-presets' })
