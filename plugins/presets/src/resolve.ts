/**
 * Turning configured presets into stored forms and resolved presets (seed `004_*`). Pure and
 * Cordis-free, so an editor or the CLI can run it without an app.
 *
 * - Explicit `persona` text wins over `template`.
 * - Persona text equal to a known template's text is stored as a reference to that template.
 * - A reference no known template answers falls back to `default` (or, without one, to the deployment
 *   persona: the preset does not shadow it) and produces a warning. The stored form keeps the reference:
 *   resolution is never written back.
 * @module
 */
import { validatePromptTemplate, type TemplateProblem } from 'dsh-system-prompt'
import { deepFreeze } from 'dsh-system-prompt/internal'
import { isToolName } from 'dsh-tools'
import { Config, type PresetConfig } from './config.js'
import {
  allowedAndDenied, completeWithoutPersona, duplicatePresetId, emptyTemplate, invalidPresetId, invalidTemplateId,
  invalidToolName, presetSyntax, repeatedToolName, suffixWithComplete, templateSyntax, unknownDefault,
  unknownTemplateWarning, type PresetNotice,
} from './errors.js'
import { BUILTIN_TEMPLATES } from './templates.js'

// The tools service's own rule, so a name refused here would be refused there too.

/**
 * A preset as it should be saved: a template reference where the text equals a known template, the
 * text otherwise; keys at their default value are left out.
 */
export interface StoredPreset {
  id: string
  persona?: string
  template?: string
  personaSuffix?: string
  complete?: true
  includeRuntimeContext?: false
  tools?: { allow?: string[]; deny?: string[] }
}

/**
 * Where a preset's persona comes from: its own `text`, a known `template`, the `default` template
 * (no persona of its own, or an unknown reference), or the `deployment` persona (nothing is shadowed).
 */
export type PersonaSource = 'text' | 'template' | 'default' | 'deployment'

/** A preset's effective persona. `text` is absent exactly when the source is `deployment`. */
export interface ResolvedPersona {
  source: PersonaSource
  /** The template the text came from (`template` and `default` sources). */
  template?: string
  text?: string
}

/** A preset ready to mount. */
export interface ResolvedPreset {
  readonly id: string
  /** The stored form (what an editor or CLI shows, e.g. `template: reviewer`). */
  readonly stored: StoredPreset
  readonly persona: ResolvedPersona
  readonly personaSuffix?: string
  /** Whether the persona claims the whole prompt (never with a `deployment` persona). */
  readonly complete: boolean
  readonly includeRuntimeContext: boolean
  /** The restriction to apply, if any. */
  readonly tools?: { readonly allow?: readonly string[]; readonly deny?: readonly string[] }
  /** Problems that did not stop the load (an unknown template reference). */
  readonly warnings: readonly PresetNotice[]
}

/** Everything the plugin mounts, resolved from its config. */
export interface PresetCatalog {
  /** Every known template: the built-in ones with the configured ones merged over them. */
  readonly templates: Readonly<Record<string, string>>
  readonly default?: string
  readonly presets: readonly ResolvedPreset[]
}

/**
 * The syntax problems of a template: every problem `validatePromptTemplate` finds except unknown
 * names (which variables exist is only known when an agent's prompt is assembled).
 */
export function syntaxProblems(text: string): TemplateProblem[] {
  return validatePromptTemplate(text, []).filter((problem) => problem.code !== 'PROMPT_UNKNOWN_VARIABLE')
}

/**
 * The stored form of `entry`, given the known `templates`. When the persona text equals several
 * templates, the entry's own `template` is preferred, then `defaultTemplate`, then the first id in
 * code-unit order.
 */
export function storePreset(
  entry: PresetConfig, templates: Readonly<Record<string, string>>, defaultTemplate?: string,
): StoredPreset {
  const stored: StoredPreset = { id: entry.id }
  if (entry.persona) {
    const reference = matchingTemplate(entry.persona, templates, [entry.template, defaultTemplate])
    if (reference === undefined) stored.persona = entry.persona
    else stored.template = reference
  } else if (entry.template) {
    stored.template = entry.template
  }
  if (entry.personaSuffix) stored.personaSuffix = entry.personaSuffix
  if (entry.complete) stored.complete = true
  if (entry.includeRuntimeContext === false) stored.includeRuntimeContext = false
  const tools = restrictionOf(entry)
  if (tools) stored.tools = { ...tools.allow && { allow: [...tools.allow] }, ...tools.deny && { deny: [...tools.deny] } }
  return stored
}

/**
 * Validates `input` (types through the schemastery schema, then the rules between keys) and resolves
 * every preset. Throws a `PresetConfigError` naming the preset or template and the key at fault;
 * unknown template references are warnings on the resolved preset, not errors.
 */
export function resolvePresets(input: Partial<Config> = {}): PresetCatalog {
  const config = Config(input)
  const templates = knownTemplates(config.templates)
  const known = Object.keys(templates).sort()
  const fallback = config.default
  if (fallback !== undefined && !Object.hasOwn(templates, fallback)) throw unknownDefault(fallback, known)
  const seen = new Set<string>()
  const presets = config.presets.map((entry, index) => {
    if (typeof entry.id !== 'string' || !entry.id) throw invalidPresetId(index, entry.id)
    if (seen.has(entry.id)) throw duplicatePresetId(entry.id)
    seen.add(entry.id)
    return resolvePreset(entry, templates, known, fallback)
  })
  return deepFreeze({ templates, ...fallback !== undefined && { default: fallback }, presets })
}

function resolvePreset(
  entry: PresetConfig, templates: Readonly<Record<string, string>>, known: readonly string[], fallback: string | undefined,
): ResolvedPreset {
  const { id } = entry
  for (const key of ['persona', 'personaSuffix'] as const) {
    const text = entry[key]
    const problems = text ? syntaxProblems(text) : []
    if (problems.length) throw presetSyntax(id, key, problems.map((p) => p.message))
  }
  const tools = restrictionOf(entry)
  if (tools) checkRestriction(id, tools)
  const complete = entry.complete === true
  if (complete && entry.personaSuffix) throw suffixWithComplete(id)

  const stored = storePreset(entry, templates, fallback)
  const warnings: PresetNotice[] = []
  const fromTemplate = (source: 'template' | 'default', template: string): ResolvedPersona => ({ source, template, text: templates[template] })
  let persona: ResolvedPersona
  if (stored.persona !== undefined) {
    persona = { source: 'text', text: stored.persona }
  } else if (stored.template !== undefined && Object.hasOwn(templates, stored.template)) {
    persona = fromTemplate('template', stored.template)
  } else {
    persona = fallback === undefined ? { source: 'deployment' } : fromTemplate('default', fallback)
    if (stored.template !== undefined) {
      warnings.push(unknownTemplateWarning(id, stored.template, known, fallback, complete && fallback === undefined))
    } else if (complete && fallback === undefined) {
      throw completeWithoutPersona(id)
    }
  }
  const resolved: ResolvedPreset = {
    id,
    stored,
    persona,
    ...entry.personaSuffix && { personaSuffix: entry.personaSuffix },
    complete: complete && persona.source !== 'deployment',
    includeRuntimeContext: entry.includeRuntimeContext !== false,
    ...tools && { tools },
    warnings,
  }
  return resolved
}

/** The built-in templates with the configured ones merged over them, each checked. */
function knownTemplates(configured: Readonly<Record<string, string>>): Record<string, string> {
  // No prototype: a template id such as "__proto__" or "constructor" is an ordinary key.
  const templates: Record<string, string> = Object.assign(Object.create(null), BUILTIN_TEMPLATES)
  for (const [id, text] of Object.entries(configured)) {
    if (!id) throw invalidTemplateId(id)
    if (!text) throw emptyTemplate(id)
    const problems = syntaxProblems(text)
    if (problems.length) throw templateSyntax(id, problems.map((p) => p.message))
    templates[id] = text
  }
  return templates
}

function matchingTemplate(
  text: string, templates: Readonly<Record<string, string>>, preferred: ReadonlyArray<string | undefined>,
): string | undefined {
  for (const id of preferred) {
    if (id !== undefined && Object.hasOwn(templates, id) && templates[id] === text) return id
  }
  return Object.keys(templates).sort().find((id) => templates[id] === text)
}

/**
 * The restriction an entry asks for, or `undefined` when it restricts nothing. An empty list counts as
 * unset (schemastery fills an absent list with `[]`, so the two cannot be told apart).
 */
function restrictionOf(entry: PresetConfig): { allow?: string[]; deny?: string[] } | undefined {
  const allow = entry.tools?.allow?.length ? entry.tools.allow : undefined
  const deny = entry.tools?.deny?.length ? entry.tools.deny : undefined
  if (!allow && !deny) return undefined
  return { ...allow && { allow: [...allow] }, ...deny && { deny: [...deny] } }
}

function checkRestriction(id: string, tools: { allow?: string[]; deny?: string[] }): void {
  for (const key of ['allow', 'deny'] as const) {
    const seen = new Set<string>()
    for (const name of tools[key] ?? []) {
      if (!isToolName(name)) throw invalidToolName(id, key, name)
      if (seen.has(name)) throw repeatedToolName(id, key, name)
      seen.add(name)
    }
  }
  const denied = new Set(tools.deny)
  const both = (tools.allow ?? []).filter((name) => denied.has(name))
  if (both.length) throw allowedAndDenied(id, both)
}
