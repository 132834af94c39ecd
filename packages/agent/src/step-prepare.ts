/**
 * What happens before a step's body is lowered: the assembly for the agent's scope, bounded by the
 * step's timeout and the caller's signal (a step that hangs names the listener it waits on, else every
 * assemble listener it could be), without the sections a compaction took out; the registration behind
 * each tool; and the tool plan (what the request declares under the agent's tool-change policy, with an
 * added tool's way in) with the inert tools' guidance. A fork and a compaction assemble the same way.
 * @module
 */
import { listenersFor } from 'dsh-scope'
import { waitingListener, type PromptAssembly } from 'dsh-system-prompt'
import { abortable } from 'dsh-system-prompt/internal'
import { toolAppendChoice, wireFormat, type WireFormat } from 'dsh-wire'
import type { AgentParts } from './agent-parts.js'
import { invalidStepTimeout, stepTimedOut } from './errors.js'
import type { StepOptions } from './step-types.js'
import type { ToolPlan } from './tool-changes.js'
import { toolOwners } from './tool-unavailable.js'
import { inertTools, type GuidanceStep } from './inert-guidance.js'

/** What preparing a step reads of the agent's parts. */
export type PrepareParts = Pick<AgentParts, 'agent' | 'hooks' | 'scope' | 'epochs' | 'tools' | 'guidance'>

/** An assembly for the agent's scope, without the sections a compaction took out while their text is unchanged. */
async function assembleOwn(parts: PrepareParts, signal: AbortSignal | undefined) {
  return parts.epochs.hide(await parts.hooks.assemble(signal))
}

/**
 * The agent's assembly, run with a signal that aborts on the caller's signal or when the step's bound
 * runs out (a timer that keeps the process alive, so a listener that never settles ends the step, not the program).
 */
export async function boundedAssembly(parts: PrepareParts, options: Pick<StepOptions<WireFormat>, 'signal' | 'timeout'>): Promise<PromptAssembly> {
  const { agent } = parts
  const ms = options.timeout ?? agent.stepTimeout
  if (typeof ms !== 'number' || !(ms >= 0)) throw invalidStepTimeout(agent.id, ms)
  if (ms === 0 || ms === Infinity) return assembleOwn(parts, options.signal)
  const controller = new AbortController()
  // The assembly runs on the caller's signal when there is one (so the caller's own bound can ask
  // `waitingListener` about it too); this bound then rejects the step without waiting for it.
  const signal = options.signal ?? controller.signal
  // The listener the assembly waits on when the time runs out, else every one it could be.
  const timer = setTimeout(() => {
    const holder = waitingListener(signal)
    controller.abort(stepTimedOut(agent.id, ms, holder === undefined ? assembleListeners(parts) : [holder]))
  }, ms)
  try {
    const work = assembleOwn(parts, signal)
    return await (options.signal ? abortable(work, controller.signal) : work)
  } finally {
    clearTimeout(timer)
  }
}

/** The plugins of the assemble listeners this agent's assemblies run (the candidates for a step that hangs). */
function assembleListeners(parts: PrepareParts): string[] {
  try {
    return [...new Set(listenersFor(parts.scope.ctx, 'system-prompt/assemble', parts.agent).map((listener) => listener.owner))]
  } catch {
    return []
  }
}

/**
 * What the request of `format` declares for `assembly`'s tools (`origins`: the registration behind
 * each, read once: the plan names owners with it, and the report keeps it). An added tool's way in:
 * the format's append path when it is open for this request (R-TOOL-13), else declared now.
 */
export function planTools(parts: PrepareParts, format: WireFormat, assembly: PromptAssembly, origins: ReturnType<AgentParts['toolOrigins']>): ToolPlan {
  const { agent } = parts
  const module = wireFormat(format)
  const appendPath = (declaredTools: number) => toolAppendChoice(module, {
    model: agent.model, enabled: agent.wire?.toolAdditions === true, declaredTools, ...(agent.wire?.promptUpdates === undefined ? {} : { promptUpdates: agent.wire.promptUpdates }),
  })
  return parts.tools.plan(assembly.tools, toolOwners(origins, assembly), appendPath)
}

/** The inert tools' guidance for the step: their sections stay as last sent (the tools `tools` declares that the assembly no longer offers). */
export function stepGuidance(parts: PrepareParts, assembly: PromptAssembly, tools: ToolPlan): GuidanceStep {
  const guidance = parts.guidance.step(assembly, inertTools(tools.declared, assembly.tools))
  guidance.annotate(tools.changes)
  return guidance
}
