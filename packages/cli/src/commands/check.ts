/**
 * `dsh-prompt check <deployment.yml>`: every problem of a deployment at once, without a model call.
 * Findings go to stdout as `file:line:column: where: message` lines; exit 1 when there is any.
 * @module
 */
import { DeploymentError, type Problem } from 'dsh-loader'
import { PERSONA_SECTION, PERSONA_SUFFIX_SECTION } from 'dsh-system-prompt'
import { bootDeployment, type BootedDeployment as Booted } from 'dsh-boot'
import { checkTarget, type FindingKind, type RawFinding } from '../checks.js'
import { invalidGap, unresolvedAllow, unresolvedRestriction, YAML_CASCADE_HINT } from '../errors.js'
import { bootOptionsOf, type CommonOptions } from '../options.js'
import type { Output } from '../output.js'
import { problemLine, yamlCascade } from '../report.js'
import { plural } from '../table.js'
import { agentLabel, type Target } from '../view.js'
import { ownersOf } from '../owners.js'
import { terminalSafe } from 'dsh-loader'

/** Options of `check`. */
export interface CheckOptions extends CommonOptions {
  /** Milliseconds between the two renders compared for unstable text (default 10). */
  renderGap?: string
}

/** One problem found by `check`, placed in the file; `code` is the stable code of what is wrong. */
export interface Finding extends Problem {
  /** Which rule found it. */
  kind: FindingKind
  /** The assemblies it was found in (`agent "main"`, `the deployment`); empty for file-level problems. */
  where: string[]
}

/** Runs `check`; resolves to 0 (no problem) or 1. */
export async function checkCommand(file: string, options: CheckOptions, output: Output): Promise<number> {
  const gap = parseGap(options.renderGap)
  let booted: Booted
  try {
    // What the log would say while loading (a failed apply, a warning) is a finding here, so nothing but
    // the report reaches stdout and stderr: the log is silent unless --log-level or --verbose asks for it.
    booted = await bootDeployment(file, bootOptionsOf(options, output, { lenientAgents: true, logLevel: options.logLevel ?? (options.verbose ? 'debug' : 'silent') }))
  } catch (error) {
    if (!DeploymentError.is(error)) throw error
    const findings = error.problems.map((problem): Finding => ({ ...problem, kind: 'load', where: [] }))
    report(output, options, findings, error.problems[0]?.file ?? file, undefined)
    return 1
  }
  try {
    const findings: Finding[] = booted.problems.map((problem) => ({ ...problem, kind: 'agent', where: [] }))
    const targets: Target[] = booted.agents.length
      ? booted.agents.map((agent) => ({ agent, label: agentLabel(agent) }))
      : (booted.deployment.sections.agents ?? []).length ? [] : [{ label: 'the deployment' }]
    const warnings: Finding[] = []
    for (const target of targets) {
      // Volatility-order and budget findings are warnings: shown, never failing the check (R-CACHE-9).
      for (const raw of await checkTarget(booted, target, gap)) add(raw.kind === 'volatility' || raw.kind === 'budget' ? warnings : findings, place(booted, raw, target.label))
    }
    for (const raw of presetFindings(booted)) add(findings, place(booted, raw, undefined))
    findings.sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity) || (a.column ?? 0) - (b.column ?? 0))
    report(output, options, findings, booted.deployment.displayFile, booted, warnings)
    return findings.length ? 1 : 0
  } finally {
    await booted.dispose()
  }
}

/** Adds a finding, merging it into an equal one found for another assembly. */
function add(findings: Finding[], finding: Finding): void {
  const same = findings.find((f) => f.kind === finding.kind && f.code === finding.code && f.message === finding.message && f.line === finding.line && f.column === finding.column)
  if (!same) findings.push(finding)
  else for (const where of finding.where) if (!same.where.includes(where)) same.where.push(where)
}

/** Places a finding in the YAML: the config key that holds the text when known, else the owner's row. */
function place(booted: Booted, raw: RawFinding, where: string | undefined): Finding {
  const { deployment } = booted
  const finding: Finding = { file: deployment.displayFile, kind: raw.kind, code: raw.code, message: raw.message, where: where ? [where] : [] }
  const path = raw.origin ? pathOf(booted, raw.origin) : undefined
  const position = path && deployment.locate(path)
  if (position) {
    finding.line = position.line
    finding.column = position.column
  }
  return finding
}

/** The key path of the YAML value behind a registration, as far as the CLI can tell. */
function pathOf(booted: Booted, origin: NonNullable<RawFinding['origin']>): Array<string | number> | undefined {
  const { deployment } = booted
  const owners = ownersOf(booted)
  const layer = owners.layer(origin.scope)
  const key = origin.name === PERSONA_SECTION ? 'persona' : origin.name === PERSONA_SUFFIX_SECTION ? 'personaSuffix' : undefined
  if (layer.startsWith('preset:')) {
    const id = layer.slice('preset:'.length)
    for (const entry of deployment.entries) {
      const presets = (entry.config as { presets?: Array<{ id?: string; persona?: unknown }> } | undefined)?.presets
      const index = Array.isArray(presets) ? presets.findIndex((preset) => preset?.id === id) : -1
      if (index < 0) continue
      const base = ['plugins', entry.index, 'config', 'presets', index]
      const own = key === 'persona' && presets![index].persona === undefined ? 'template' : key
      return own && deployment.locate([...base, own]) ? [...base, own] : base
    }
  }
  if (layer.startsWith('agent:')) {
    const index = (booted.deployment.sections.agents ?? []).findIndex((spec) => `agent:${spec.id}` === layer)
    return index < 0 ? undefined : ['agents', index]
  }
  const entry = owners.entry(origin.owner)
  if (!entry) return undefined
  if (key && deployment.locate(['plugins', entry.index, 'config', key])) return ['plugins', entry.index, 'config', key]
  return ['plugins', entry.index]
}

/** Preset warnings and restrictions naming tools no plugin registers (`dsh-presets`, when loaded). */
function presetFindings(booted: Booted): RawFinding[] {
  const presets = booted.ctx.get('presets') as PresetsLike | undefined
  if (!presets || typeof presets.ids !== 'function') return []
  const findings: RawFinding[] = []
  for (const id of presets.ids()) {
    const origin = { scope: booted.services.agents?.preset(id)?.key }
    const preset = presets.get(id)
    for (const warning of preset?.warnings ?? []) findings.push({ kind: 'preset', code: warning.code, message: warning.message, origin })
    const unresolved = presets.unresolvedTools?.(id) ?? []
    // An allow-list name lets nothing through; a deny-list name hides nothing: two different messages.
    const allow = preset?.tools?.allow ?? []
    const allowed = unresolved.filter((name) => allow.includes(name))
    const denied = unresolved.filter((name) => !allow.includes(name))
    if (allowed.length) findings.push({ kind: 'preset', ...unresolvedAllow(id, allowed, allowed.length === allow.length), origin })
    if (denied.length) findings.push({ kind: 'preset', ...unresolvedRestriction(id, denied), origin })
  }
  return findings
}

/** What `check` reads of the `presets` service of `dsh-presets` (not a dependency: read if present). */
interface PresetsLike {
  ids(): string[]
  get(id: string): { warnings?: ReadonlyArray<{ code: string; message: string }>; tools?: { allow?: readonly string[] } } | undefined
  unresolvedTools?(id: string): readonly string[]
}

function report(output: Output, options: CheckOptions, findings: readonly Finding[], file: string, booted: Booted | undefined, warnings: readonly Finding[] = []): void {
  const agents = booted?.agents.map((agent) => agent.id) ?? []
  if (options.json) {
    output.json({
      ok: !findings.length,
      command: 'check',
      file,
      problems: findings,
      ...(warnings.length ? { warnings } : {}),
      checked: booted ? { plugins: booted.deployment.entries.length, disabled: booted.deployment.disabled.length, agents } : null,
    })
    return
  }
  const c = output.colors
  for (const finding of findings) {
    const where = finding.where.length ? `${finding.where.length > 1 ? whereList(finding.where) : finding.where[0]}: ` : ''
    output.line(problemLine({ ...finding, message: where + finding.message }, c.bold))
  }
  for (const warning of warnings) {
    const where = warning.where.length ? `${warning.where.length > 1 ? whereList(warning.where) : warning.where[0]}: ` : ''
    output.line(problemLine({ ...warning, message: `warning: ${where}${warning.message}` }, c.bold))
  }
  if (findings.length) {
    output.line(c.red(`${plural(findings.length, 'problem')} in ${file}`))
    // A hint, not a finding: stderr, so stdout stays one line per problem and the count.
    if (yamlCascade(findings)) output.error(YAML_CASCADE_HINT)
    return
  }
  const d = booted!.deployment
  const parts = [plural(d.entries.length, 'plugin'), ...(d.disabled.length ? [`${d.disabled.length} disabled`] : [])]
  const subject = agents.length ? `${plural(agents.length, 'agent')} (${agents.map((id) => terminalSafe(id)).join(', ')})` : 'the deployment-level assembly'
  const warned = warnings.length ? ` (${plural(warnings.length, 'warning')})` : ''
  output.line(c.green(`ok: ${file}: ${parts.join(', ')}; ${subject} assembled, rendered twice and checked: no problem found${warned}`))
}

/** `agents "main", "reviewer"` from `agent "main"`, `agent "reviewer"`. */
function whereList(where: readonly string[]): string {
  if (where.every((w) => w.startsWith('agent '))) return `agents ${where.map((w) => w.slice('agent '.length)).join(', ')}`
  return where.join(', ')
}

function parseGap(value: string | undefined): number {
  if (value === undefined) return 10
  const gap = Number(value)
  if (!/^\d+$/.test(value) || gap > 10000) throw invalidGap(value)
  return gap
}

