/**
 * `bootDeployment(file, { check: true })`: the first step of every agent, rehearsed at boot. Each
 * agent's assembly (or, with no agent, the deployment's) is assembled and rendered once, as
 * `agent.step()` would, and what would make that step throw is a problem of the load: every failing
 * provider (not only the first), an unknown or valueless `{{variable}}`, two complete sections, a
 * listener that throws or returns a malformed assembly. `dsh-prompt check` does the same and more
 * (two renders compared for unstable text, volatility order, closeness of sections, budget, presets):
 * those are findings about the cache and the deployment's style, not failures of a step.
 * @module
 */
import type { Context } from 'cordis'
import { codeOf, type Deployment, type ProblemInput, type SectionSchemas } from 'dsh-loader'
import { providerFailures, renderAssembly } from 'dsh-system-prompt'
import type { Agent } from 'dsh-agent'
import { inAssemblies } from './errors.js'

/** A problem of the load, with its code. */
type CodedInput = ProblemInput & { code: string }

/** Codes the load reports anyway (the `toolOrder` check of `after-load.ts`). */
const REPORTED = new Set(['PROMPT_TOOL_ORDER_UNREGISTERED', 'PROMPT_RESERVED_TOOL_NAME'])

/** Assembles and renders once for each agent (or for the deployment when it has none) and returns what a first step would throw. */
export async function checkFirstSteps<S extends SectionSchemas>(host: Context, deployment: Deployment<S>, agents: readonly Agent[]): Promise<CodedInput[]> {
  const targets: Array<{ label: string; agent?: Agent }> = agents.length ? agents.map((agent) => ({ label: `agent ${JSON.stringify(agent.id)}`, agent })) : [{ label: 'the deployment' }]
  // The same error in several assemblies is reported once, naming them all.
  const found = new Map<string, { cause: { code: string; message: string; details: object }; where: string[] }>()
  for (const target of targets) {
    let errors: unknown[] = []
    try {
      const assembly = await host.systemPrompt.assemble(target.agent ? { scope: target.agent, agent: target.agent } : {})
      renderAssembly(assembly)
    } catch (error) {
      const failures = providerFailures(error)
      errors = failures.length ? failures : [error]
    }
    for (const error of errors) {
      const code = codeOf(error)
      if (code === undefined || REPORTED.has(code)) continue
      const cause = { code, message: (error as Error).message, details: ((error as { details?: object }).details ?? {}) }
      const same = `${code} ${cause.message}`
      const item = found.get(same) ?? { cause, where: [] }
      item.where.push(target.label)
      found.set(same, item)
    }
  }
  return [...found.values()].map(({ cause, where }) => {
    const owner = (cause.details as { owner?: unknown }).owner
    const entry = typeof owner === 'string' ? deployment.entries.find((row) => row.fiber.name === owner)?.id : undefined
    return { ...(entry === undefined ? { key: 'plugins' } : { entry }), ...inAssemblies(cause, where) }
  })
}
