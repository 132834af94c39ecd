/**
 * What one request carries for one target (an agent, or the deployment when it declares no agents):
 * the assembly, the rendered sections and system prompt, the runtime-context snapshot, the tools as
 * sent, and for an agent the whole chat-completions request body.
 * @module
 */
import { toRequestTool, type Agent, type ChatRequest, type RequestTool } from 'dsh-agent'
import { renderAssembly, type PromptAssembly, type ToolSchema, type RenderedContext, type RenderedPrompt, type RenderedSection } from 'dsh-system-prompt'
import type { ScopeKey } from 'dsh-scope'
import type { BootedDeployment as Booted } from 'dsh-boot'
import { codeOf, detailsOf } from './codes.js'
import { bounded } from './deadline.js'
import { renderFailed, thrown, toolNotSendable, unknownAgent, type CliError } from './errors.js'
import { originPhrase, ownersOf } from './owners.js'
import { terminalSafe } from 'dsh-loader'

/** What a command looks at: one agent, or the deployment-level assembly (no scope). */
export interface Target {
  /** The agent; absent for the deployment-level assembly. */
  readonly agent?: Agent
  /** How messages name it: `agent "main"` or `the deployment`. */
  readonly label: string
}

/** Everything one request carries, for one target. */
export interface PromptView {
  readonly target: Target
  readonly assembly: PromptAssembly
  /** What the assembly rendered to (the agent's own step result for an agent: rendered once). */
  readonly rendered: RenderedPrompt
  /** The non-empty sections in render order, each with its assembled entry (`rendered.sections`). */
  readonly sections: readonly RenderedSection[]
  /** The system prompt: the sections joined by blank lines. */
  readonly system: string
  /** The non-empty contexts in order (`rendered.contexts`). */
  readonly contexts: readonly RenderedContext[]
  /** The runtime-context snapshot (`''` when no context has text or the runtime context is off). */
  readonly snapshot: string
  /** The tools as the request's `tools` field carries them (`[]` when none is visible). */
  readonly tools: readonly RequestTool[]
  /** The request body (agents only). */
  readonly request?: ChatRequest
}

/**
 * The target for `--agent id`: that agent; without `id` the first agent of the file; a deployment
 * without agents gives the deployment-level assembly. An unknown id is a usage error.
 */
export function pickTarget(booted: Booted, id?: string): Target {
  if (id !== undefined) {
    const agent = booted.agents.find((candidate) => candidate.id === id)
    if (!agent) throw unknownAgent(id, booted.deployment.displayFile, (booted.deployment.sections.agents ?? []).map((spec) => spec.id))
    return { agent, label: agentLabel(agent) }
  }
  const first = booted.agents[0]
  return first ? { agent: first, label: agentLabel(first) } : { label: 'the deployment' }
}

/** How messages name an agent: `agent "main"`, the id JSON-quoted, so no id can break the line. */
export function agentLabel(agent: Pick<Agent, 'id'>): string {
  return `agent ${JSON.stringify(agent.id)}`
}

/**
 * Renders what the target's next request carries. For an agent this is one `step()` (with `input` as
 * the user message, if given), exactly as the agent loop would run it; a render failure is a
 * `CliError` naming the target (exit 1). The assembly is bounded (`deadline.ts`): one that does not
 * settle in time is `CLI_ASSEMBLY_TIMEOUT`.
 */
export async function viewOf(booted: Booted, target: Target, input?: string): Promise<PromptView> {
  try {
    let view: PromptView
    if (target.agent) {
      const agent = target.agent
      const step = await bounded(booted, target.label, agent, (signal) => agent.stepDetailed(input, { signal }))
      view = viewFrom(target, step.assembly, step.rendered, step.request.tools ?? [], step.request)
    } else {
      const assembly = await bounded(booted, target.label, undefined, (signal) => booted.services.systemPrompt.assemble({ signal }))
      view = viewFrom(target, assembly, renderAssembly(assembly), assembly.tools.map(toRequestTool))
    }
    // The request body is JSON: a tool that cannot be written so fails here, named, not while printing.
    const unsendable = unsendableTools(booted, target, view.assembly.tools)[0]
    if (unsendable) throw thrown(unsendable, 'render')
    return view
  } catch (error) {
    // A timeout names the target and its listeners already.
    if (codeOf(error) === 'CLI_ASSEMBLY_TIMEOUT') throw error
    throw renderFailure(target.label, error)
  }
}

/** The `CliError` for a failed render of `label`; a valueless variable (told apart by code) gets the loop-variable hint. */
export function renderFailure(label: string, error: unknown): CliError {
  return renderFailed(label, error, detailsOf<{ variable: string }>(error, 'PROMPT_VALUELESS_VARIABLE')?.variable)
}

/** The target in one phrase for headers: `agent "main" (model deepseek-chat, preset reviewer)`. */
export function describeTarget(target: Target): string {
  const agent = target.agent
  if (!agent) return 'no agents declared: the deployment-level assembly (global layer only, no scope)'
  // Each fact comes from the deployment: escaped, so none can forge a line or drive the terminal.
  const facts = [`model ${terminalSafe(agent.model)}`]
  if (agent.provider !== undefined) facts.push(`provider ${terminalSafe(agent.provider)}`)
  if (agent.preset !== undefined) facts.push(`preset ${terminalSafe(agent.preset)}`)
  if (agent.parent !== undefined) facts.push(`parent ${terminalSafe(agent.parent.id)}`)
  if (agent.cwd !== undefined) facts.push(`cwd ${terminalSafe(agent.cwd)}`)
  return `${terminalSafe(target.label)} (${facts.join(', ')})`
}

/** Why a runtime-context snapshot is empty, in words. */
export function snapshotAbsence(booted: Booted, target: Target): string {
  if (!booted.services.systemPrompt.config.includeRuntimeContext) return '(off for the deployment: includeRuntimeContext is false)'
  const suppressors = booted.services.systemPrompt.inspect(target.agent).suppressors
  if (suppressors.length) {
    return `(off for this ${target.agent ? 'agent' : 'assembly'}: suppressed by ${suppressors.map((s) => ownersOf(booted).layer(s.scope)).join(', ')})`
  }
  return '(none: no runtime context has text, so the request carries no runtime-context message)'
}

/**
 * Owner and layer of each visible tool of the target, as shown: from the `tools` service when the
 * deployment has one, else the single tool provider of the assembly (several: unknown).
 */
export function toolOrigins(booted: Booted, target: Target): (name: string) => { owner: string; layer: string } {
  const sourceOf = toolSources(booted, target)
  return (name) => {
    const from = sourceOf(name)
    return from ? { owner: ownersOf(booted).plugin(from.owner), layer: ownersOf(booted).layer(from.scope) } : { owner: '(tool provider)', layer: '' }
  }
}

/** The registration behind each visible tool of the target (registry owner and scope), as {@link toolOrigins} reads it; `undefined` when unknown. */
export function toolSources(booted: Booted, target: Target): (name: string) => { owner: string; scope?: ScopeKey } | undefined {
  const scope = target.agent as ScopeKey | undefined
  const origin = booted.services.tools?.view(scope).origin
  // Else the assembly's tool check, which knows the plugin whose provider returned each visible tool
  // (raw `systemPrompt.tools()` providers included); the layer is that provider's.
  const providers = booted.services.systemPrompt.inspect(scope).toolProviders
  let owners: ReadonlyMap<string, string> | undefined
  try {
    owners = booted.services.systemPrompt.checkTools(target.agent ? { scope, agent: target.agent } : {}).owners
  } catch {
    owners = undefined
  }
  return (name) => {
    const found = origin?.get(name)
    if (found) return found
    const owner = owners?.get(name)
    if (owner === undefined) return providers.length === 1 ? providers[0] : undefined
    const own = providers.filter((provider) => provider.owner === owner)
    return { owner, ...(own.length === 1 && own[0].scope !== undefined ? { scope: own[0].scope } : {}) }
  }
}

/** A tool of an assembly whose request JSON cannot be made: the problem, and the registration to place it at. */
export interface UnsendableTool extends ReturnType<typeof toolNotSendable> {
  readonly origin?: { readonly owner: string; readonly scope?: ScopeKey }
}

/**
 * The tools of `tools` whose request JSON (`toRequestTool`, as `render` writes it) cannot be made: what
 * an assembly admits is plain frozen data, but a `toJSON` method held as data still runs, and may throw.
 */
export function unsendableTools(booted: Booted, target: Target, tools: readonly ToolSchema[]): UnsendableTool[] {
  const found: UnsendableTool[] = []
  for (const tool of tools) {
    try {
      JSON.stringify(toRequestTool(tool))
    } catch (error) {
      const shown = toolOrigins(booted, target)(tool.name)
      const from = toolSources(booted, target)(tool.name)
      found.push({ ...toolNotSendable(tool.name, originPhrase(shown.owner, shown.layer), error), origin: from && { owner: from.owner, scope: from.scope } })
    }
  }
  return found
}

function viewFrom(target: Target, assembly: PromptAssembly, rendered: RenderedPrompt, tools: readonly RequestTool[], request?: ChatRequest): PromptView {
  const { sections, system, contexts, snapshot } = rendered
  return { target, assembly, rendered, sections, system, contexts, snapshot, tools, request }
}
