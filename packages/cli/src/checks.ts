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
  interpolate, providerFailures, renderAssembly, SECTION_PLACEMENTS, validatePromptTemplate, type AssembledContext, type AssembledSection, type Inspection,
  type PromptAssembly, type RenderedPart,
} from 'dsh-system-prompt'
import type { BootedDeployment as Booted } from 'dsh-boot'
import { templateVariables } from 'dsh-system-prompt/internal'
import { codeOf } from './codes.js'
import { assemblyFailed, completeSections, inEntry, placementsTooClose, unstableText, valuelessAt, volatileBeforeStable } from './errors.js'
import { firstDifferentByte } from './prefix.js'
import { bounded } from './deadline.js'
import type { Tokenizer } from './tokens.js'
import { unsendableTools, type Target } from './view.js'
import { ownersOf } from './owners.js'
import { toolRuleFindings } from './tool-findings.js'
import { headShare, headWarning } from './head-share.js'
import { loadTokenizer } from './tokens.js'
import { toRequestTool } from 'dsh-agent'

/** Which rule found a finding (its `code` says exactly what is wrong). */
export type FindingKind = 'load' | 'agent' | 'assembly' | 'complete' | 'variable' | 'placement' | 'unstable' | 'preset' | 'request' | 'volatility' | 'budget'

/** One problem `check` found, before it is placed in the file. */
export interface RawFinding {
  kind: FindingKind
  /** The stable code of what is wrong (the cause's own, or `CLI_*`). */
  code: string
  message: string
  /** The registration at fault, to place the finding in the YAML. */
  origin?: { owner?: string; scope?: ScopeKey; name?: string }
}

/** What `check` reads time from: the clock, and the wait between its two renders (a test injects both). */
export interface CheckClock {
  now(): number
  wait(ms: number): Promise<void>
}

const SYSTEM_CLOCK: CheckClock = { now: Date.now, wait: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) }

/** Every time zone's days start on a quarter hour of UTC (offsets are whole quarter hours, `+05:45` included). */
const QUARTER_HOUR = 15 * 60 * 1000

/** Whether a day may have begun between `a` and `b` (milliseconds) in some time zone: a quarter hour of UTC lies between them. */
export function dayBoundaryBetween(a: number, b: number): boolean {
  return Math.floor(a / QUARTER_HOUR) !== Math.floor(b / QUARTER_HOUR)
}

/**
 * Assembles for `target` twice, `gap` milliseconds apart, and runs every rule on the result. When text
 * differs between the two and a day boundary (of any time zone) fell between them, the pair is rendered
 * again: a `{{date}}` is not a clock, while a real clock or random value differs in the second pair too.
 */
export async function checkTarget(booted: Booted, target: Target, gap: number, clock: CheckClock = SYSTEM_CLOCK): Promise<RawFinding[]> {
  const scope = target.agent as ScopeKey | undefined
  const prompt = booted.services.systemPrompt
  // Each assembly is bounded (`deadline.ts`): one that never settles is the finding CLI_ASSEMBLY_TIMEOUT.
  const assemble = () => bounded(booted, target.label, scope, (signal) => prompt.assemble(target.agent ? { scope, agent: target.agent, signal } : { signal }))
  // Parts declared to change (their own volatility, or a referenced variable's) may differ (R-CACHE-8).
  const inspection = prompt.inspect(target.agent)
  const volatile = declaredVolatile(inspection)
  const renderPair = async () => {
    const start = clock.now()
    const first = await assemble()
    await clock.wait(gap)
    const second = await assemble()
    return { first, second, unstable: unstableFindings(booted, first, second, volatile), overDay: dayBoundaryBetween(start, clock.now()) }
  }
  let pair: Awaited<ReturnType<typeof renderPair>>
  const tokenizer = await loadTokenizer()
  try {
    pair = await renderPair()
    if (pair.unstable.length && pair.overDay) pair = await renderPair()
  } catch (error) {
    // Every failing provider of the assembly, not only the first (issue 24).
    const failures = providerFailures(error)
    return failures.length ? failures.map((failure) => assemblyFinding(booted, target, failure)) : [assemblyFinding(booted, target, error)]
  }
  return [
    ...variableFindings(booted, pair.first), ...placementFindings(booted, pair.first), ...requestFindings(booted, target, pair.first), ...pair.unstable,
    ...safely(() => volatilityWarnings(booted, inspection, pair.first)),
    ...safely(() => budgetWarnings(target, pair.first, tokenizer)),
  ]
}

/** A warning when the system prompt and tools alone take more than a share of the agent's input budget (`head-share.ts`). */
export function budgetWarnings(target: Target, assembly: PromptAssembly, tokenizer: Tokenizer): RawFinding[] {
  if (!target.agent) return []
  const warning = headWarning(target.agent, headShare(target.agent, renderAssembly(assembly).system, assembly.tools.map(toRequestTool), tokenizer))
  return warning ? [{ kind: 'budget', ...warning, origin: { scope: target.agent } }] : []
}

/**
 * What the send path would fail on: a section or context that renders past the size a rendered text may
 * hold ({@link sizeFindings}), each tool whose request JSON cannot be made ({@link unsendableTools}), and
 * each tool a provider's documented rules refuse ({@link toolRuleFindings}).
 */
export function requestFindings(booted: Booted, target: Target, assembly: PromptAssembly): RawFinding[] {
  return [
    ...sizeFindings(assembly), ...unsendableTools(booted, target, assembly.tools).map(({ origin, ...problem }) => ({ kind: 'request' as const, ...problem, origin })),
    ...toolRuleFindings(booted, target, assembly),
  ]
}

/**
 * `PROMPT_TEXT_TOO_LONG` when the assembly renders past `MAX_RENDERED_CHARS` (as a step, `render` and
 * the embedding API would fail), naming the section or context and the variable; other render problems
 * are found, each in its place, by {@link variableFindings}.
 */
export function sizeFindings(assembly: PromptAssembly): RawFinding[] {
  try {
    renderAssembly(assembly)
    return []
  } catch (error) {
    if (codeOf(error) !== 'PROMPT_TEXT_TOO_LONG') return []
    const { kind, entry } = (error as Error & { details: { kind: 'section' | 'context'; entry: string } }).details
    const found = (kind === 'section' ? assembly.sections : assembly.contexts).find((item) => item.name === entry)
    return [{ kind: 'request', code: 'PROMPT_TEXT_TOO_LONG', message: (error as Error).message, ...(found ? { origin: { owner: found.owner, scope: found.scope, name: found.name } } : {}) }]
  }
}

/** The finding for an assembly that failed: two complete sections (told apart by code) name where each comes from. */
export function assemblyFinding(booted: Booted, target: Target, error: unknown): RawFinding {
  const failure = assemblyFailed(error)
  if (codeOf(error) !== 'PROMPT_MULTIPLE_COMPLETE') {
    // An error naming a plugin (`details.owner`) is placed at that plugin's row.
    const owner = (error as { details?: { owner?: unknown } } | null)?.details?.owner
    return { kind: 'assembly', ...failure, ...(typeof owner === 'string' ? { origin: { owner } } : {}) }
  }
  const complete = booted.services.systemPrompt.inspect(target.agent).sections.filter((section) => section.complete)
  const origin = complete[complete.length - 1]
  return {
    kind: 'complete',
    ...completeSections(failure, complete.map((s) => `${JSON.stringify(s.name)} from ${ownersOf(booted).describe(s)}`)),
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
      findings.push({ kind: 'variable', ...inEntry(kind, entry.name, ownersOf(booted).describe(entry), problem), origin: { owner: entry.owner, scope: entry.scope, name: entry.name } })
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
 * Whether a section or context may render differently by design (R-CACHE-8): it declares a volatility
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
        ...unstableText(kind, entry.name, ownersOf(booted).describe(entry), byte),
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

/**
 * How often a part changes within one conversation: `conversation` parts are as stable as `static` ones
 * there (they differ only between conversations), so only `daily` and `turn` parts can put later bytes
 * of the same conversation at risk.
 */
const RANK: Readonly<Record<string, number>> = { static: 0, conversation: 0, daily: 1, turn: 2 }

/**
 * Warnings, not problems (R-CACHE-9): each rendered section whose effective volatility (its own, or the
 * most volatile variable it references) changes within a conversation more often than that of a section
 * rendered after it, naming the first such section and the bytes of system prompt after the volatile one
 * that each change re-sends.
 */
export function volatilityWarnings(booted: Booted, inspection: Inspection, assembly: PromptAssembly): RawFinding[] {
  const own = new Map(inspection.sections.map((s) => [s.name, s.volatility as string]))
  const variables = new Map(inspection.variables.map((v) => [v.name, v.volatility as string]))
  const rendered = renderAssembly(assembly).sections
  const level = (part: RenderedPart<AssembledSection>) => {
    let volatility: string = own.get(part.name) ?? 'static'
    if (part.entry.interpolate !== false) {
      for (const name of templateVariables(part.entry.text)) {
        const v = variables.get(name) ?? 'static'
        if (RANK[v] > RANK[volatility]) volatility = v
      }
    }
    return volatility
  }
  const levels = rendered.map(level)
  const warnings: RawFinding[] = []
  for (let i = 0; i < rendered.length; i++) {
    const later = levels.findIndex((v, j) => j > i && RANK[v] < RANK[levels[i]])
    if (later < 0) continue
    const bytes = rendered.slice(i + 1).reduce((n, part) => n + Buffer.byteLength(part.text, 'utf8') + 2, 0)
    const entry = rendered[i].entry
    warnings.push({
      kind: 'volatility',
      ...volatileBeforeStable({ name: rendered[i].name, volatility: levels[i], origin: ownersOf(booted).describe(entry) }, { name: rendered[later].name, volatility: levels[later] }, bytes),
      origin: { owner: entry.owner, scope: entry.scope, name: entry.name },
    })
  }
  return warnings
}

/** The warnings of `make`, or none when the assembly does not render (its problem is reported already). */
function safely(make: () => RawFinding[]): RawFinding[] {
  try {
    return make()
  } catch {
    return []
  }
}
