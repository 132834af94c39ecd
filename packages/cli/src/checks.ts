/**
 * The checks of `dsh-prompt check` for one target (an agent, or the deployment without agents): the
 * assembly succeeds, every `{{variable}}` of every section and context is known and has a value,
 * first-party sections keep ten apart, and no text changes between two renders in a row unless it is
 * declared to (a volatility other than `static`, its own or a referenced variable's). Each rule
 * returns findings; nothing here calls a model or records anything in a conversation.
 * @module
 */
import type { ScopeKey } from 'dsh-scope'
import {
  interpolate, SECTION_PLACEMENTS, validatePromptTemplate, type AssembledContext, type AssembledSection, type Inspection, type PromptAssembly,
} from 'dsh-system-prompt'
import { templateVariables } from 'dsh-system-prompt/internal'
import type { Booted } from './boot.js'
import { codeOf } from './codes.js'
import { assemblyFailed, completeSections, inEntry, placementsTooClose, unstableText, valuelessAt } from './errors.js'
import { firstDifferentByte } from './prefix.js'
import type { Target } from './view.js'

/** Which rule found a finding (its `code` says exactly what is wrong). */
export type FindingKind = 'load' | 'agent' | 'assembly' | 'complete' | 'variable' | 'placement' | 'unstable' | 'preset'

/** One problem `check` found, before it is placed in the file. */
export interface RawFinding {
  kind: FindingKind
  /** The stable code of what is wrong (the cause's own, or `CLI_*`). */
  code: string
  message: string
  /** The registration at fault, to place the finding in the YAML. */
  origin?: { owner?: string; scope?: ScopeKey; name?: string }
}

/** Assembles for `target` twice, `gap` milliseconds apart, and runs every rule on the result. */
export async function checkTarget(booted: Booted, target: Target, gap: number): Promise<RawFinding[]> {
  const context = target.agent ? { scope: target.agent as ScopeKey, agent: target.agent } : {}
  let first: PromptAssembly
  let second: PromptAssembly
  try {
    first = await booted.prompt.assemble(context)
    await new Promise((resolve) => setTimeout(resolve, gap))
    second = await booted.prompt.assemble(context)
  } catch (error) {
    return [assemblyFinding(booted, target, error)]
  }
  const volatile = declaredVolatile(booted.prompt.inspect(target.agent))
  return [...variableFindings(booted, first), ...placementFindings(booted, first), ...unstableFindings(booted, first, second, volatile)]
}

/** The finding for an assembly that failed: two complete sections (told apart by code) name where each comes from. */
export function assemblyFinding(booted: Booted, target: Target, error: unknown): RawFinding {
  const failure = assemblyFailed(error)
  if (codeOf(error) !== 'PROMPT_MULTIPLE_COMPLETE') return { kind: 'assembly', ...failure }
  const complete = booted.prompt.inspect(target.agent).sections.filter((section) => section.complete)
  const origin = complete[complete.length - 1]
  return {
    kind: 'complete',
    ...completeSections(failure, complete.map((s) => `${JSON.stringify(s.name)} from ${booted.owners.describe(s)}`)),
    origin: origin && { owner: origin.owner, scope: origin.scope, name: origin.name },
  }
}

/** Every unknown, valueless or malformed `{{…}}` of every interpolated section and context. */
export function variableFindings(booted: Booted, assembly: PromptAssembly): RawFinding[] {
  const registered = Object.keys(assembly.variables)
  const valued = registered.filter((name) => assembly.variables[name] !== undefined)
  const findings: RawFinding[] = []
  const scan = (kind: 'section' | 'context', entry: AssembledSection | AssembledContext) => {
    if (entry.interpolate === false) return
    const found = (problem: { code: string; message: string }) =>
      findings.push({ kind: 'variable', ...inEntry(kind, entry.name, booted.owners.describe(entry), problem), origin: { owner: entry.owner, scope: entry.scope, name: entry.name } })
    for (const problem of validatePromptTemplate(entry.text, registered)) found(problem)
    for (const problem of validatePromptTemplate(entry.text, valued)) {
      if (problem.code !== 'PROMPT_UNKNOWN_VARIABLE') continue
      const name = entry.text.slice(problem.index + 2, problem.index + problem.length - 2)
      if (registered.includes(name)) found(valuelessAt(name, problem.line, problem.column))
    }
  }
  for (const section of assembly.sections) scan('section', section)
  for (const context of assembly.contexts) scan('context', context)
  return findings
}

/** First-party sections (names in `SECTION_PLACEMENTS`) next to each other with orders less than ten apart. */
export function placementFindings(booted: Booted, assembly: PromptAssembly): RawFinding[] {
  // Sections a listener added without an order have no placement to compare.
  const firstParty = assembly.sections.filter((section): section is AssembledSection & { order: number } =>
    Object.hasOwn(SECTION_PLACEMENTS, section.name) && section.order !== undefined)
  const findings: RawFinding[] = []
  for (let i = 1; i < firstParty.length; i++) {
    const [a, b] = [firstParty[i - 1], firstParty[i]]
    if (Math.abs(b.order - a.order) < 10) {
      findings.push({ kind: 'placement', ...placementsTooClose(a, b), origin: { owner: b.owner, scope: b.scope, name: b.name } })
    }
  }
  return findings
}

/**
 * Whether a section or context may render differently by design (SPEC §13): it declares a volatility
 * other than `static`, or its text references a variable that does. Read from the registrations.
 */
export function declaredVolatile(inspection: Inspection): (kind: 'section' | 'context', entry: AssembledSection) => boolean {
  const variables = new Map(inspection.variables.map((v) => [v.name, v.volatility]))
  const own = new Map(['section', 'context'].flatMap((kind) => (kind === 'section' ? inspection.sections : inspection.contexts).map((t) => [`${kind}:${t.name}`, t.volatility] as const)))
  return (kind, entry) => (own.get(`${kind}:${entry.name}`) ?? 'static') !== 'static'
    || (entry.interpolate !== false && templateVariables(entry.text).some((name) => (variables.get(name) ?? 'static') !== 'static'))
}

/**
 * Sections and contexts whose text differs between two assemblies made one after the other, except those
 * `volatile` says may change by design.
 */
export function unstableFindings(
  booted: Booted, first: PromptAssembly, second: PromptAssembly, volatile: (kind: 'section' | 'context', entry: AssembledSection) => boolean = () => false,
): RawFinding[] {
  const findings: RawFinding[] = []
  const compare = (kind: 'section' | 'context', before: ReadonlyArray<AssembledSection>, after: ReadonlyArray<AssembledSection>, variables: [PromptAssembly['variables'], PromptAssembly['variables']]) => {
    const later = new Map(after.map((entry) => [entry.name, entry]))
    for (const entry of before) {
      const other = later.get(entry.name)
      if (!other || volatile(kind, entry)) continue
      const byte = firstDifferentByte(textOf(entry, variables[0], kind), textOf(other, variables[1], kind))
      if (byte === undefined) continue
      findings.push({
        kind: 'unstable',
        ...unstableText(kind, entry.name, booted.owners.describe(entry), byte),
        origin: { owner: entry.owner, scope: entry.scope, name: entry.name },
      })
    }
  }
  compare('section', first.sections, second.sections, [first.variables, second.variables])
  compare('context', first.contexts, second.contexts, [first.variables, second.variables])
  return findings
}

/** The text as rendered, or as assembled when it does not render (that problem is reported elsewhere). */
function textOf(entry: AssembledSection, variables: PromptAssembly['variables'], kind: 'section' | 'context'): string {
  if (entry.interpolate === false) return entry.text
  try {
    return interpolate(entry.text, variables, kind, entry.name)
  } catch {
    return entry.text
  }
}
