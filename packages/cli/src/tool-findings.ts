/**
 * The tool findings of `dsh-prompt check` that come from the providers' documented rules (issue 20):
 * every visible tool checked against the tool rules of every registered wire format (`toolProblems` of
 * `dsh-wire`; the deployment names no format, and one agent may be sent in any), so a tool that a step
 * would be refused for is a problem here first. One finding per tool and rule, naming the formats that
 * refuse it and the plugin that registered the tool (or the assemble listener's plugin that added it).
 * @module
 */
import type { BootedDeployment as Booted } from 'dsh-boot'
import { assemblyNotes, type PromptAssembly } from 'dsh-system-prompt'
import type { ScopeKey } from 'dsh-scope'
import { toolProblems } from 'dsh-wire'
import { toolRefused } from './errors.js'
import { ownersOf } from './owners.js'
import { toolSources, type Target } from './view.js'

/** A `request` finding of `check` (a `RawFinding` of `checks.ts`, which calls this). */
export interface ToolRuleFinding extends ReturnType<typeof toolRefused> {
  readonly kind: 'request'
  readonly origin?: { readonly owner: string; readonly scope?: ScopeKey }
}

/** A finding per tool and broken rule, with the formats whose providers refuse the tool for it. */
export function toolRuleFindings(booted: Booted, target: Target, assembly: PromptAssembly): ToolRuleFinding[] {
  const problems = toolProblems('all', assembly.tools)
  if (!problems.length) return []
  const groups = new Map<string, { code: string; tool: string; what: string; formats: string[] }>()
  for (const problem of problems) {
    const { details } = problem
    const what = problem.code === 'WIRE_INVALID_TOOL_NAME' ? `its name must match ${(details as { rule: string }).rule}` : `its parameters ${(details as { problem: string }).problem}`
    const key = JSON.stringify([details.tool, problem.code, what])
    const group = groups.get(key)
    if (group) group.formats.push(details.format)
    else groups.set(key, { code: problem.code, tool: details.tool, what, formats: [details.format] })
  }
  const originOf = toolOrigin(booted, target, assembly)
  return [...groups.values()].map(({ code, tool, what, formats }) => {
    const origin = originOf(tool)
    const shown = origin ? ownersOf(booted).describe(origin) : '(tool provider)'
    return { kind: 'request' as const, ...toolRefused(code, tool, shown, formats, what), ...(origin ? { origin } : {}) }
  })
}

/**
 * The registration behind a tool: the plugin of the assemble listener that last added or rewrote it,
 * else the `tools` service's or the single provider's registration, else the provider that returned it.
 */
function toolOrigin(booted: Booted, target: Target, assembly: PromptAssembly): (name: string) => { owner: string; scope?: ScopeKey } | undefined {
  const notes = assemblyNotes(assembly)
  const source = toolSources(booted, target)
  return (name) => {
    const change = notes?.provenance.tools.get(name)
    if (change) return { owner: change.by }
    const from = source(name)
    if (from) return from
    const owner = notes?.tools.owners.get(name)
    return owner === undefined ? undefined : { owner, scope: notes?.tools.layers.get(name) }
  }
}
