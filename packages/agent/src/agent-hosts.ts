/**
 * What an agent lends the work done beside its steps: a fork's source (`fork.ts`: the latest request
 * of the format, the agent's lowering and measures, an assembly bounded as a step's is) and a
 * compaction's host (`compaction.ts`: the record, the survival of each section, the latest step, and
 * the opening of the new epoch). Both read the agent's parts as they stand when they are called.
 * @module
 */
import { wireFormat, type WireFormat } from 'dsh-wire'
import type { AgentParts } from './agent-parts.js'
import { stepInput } from './agent-reply.js'
import { cacheProviderFor } from './cache-report.js'
import type { CompactionHost } from './compaction.js'
import { agentDisposed } from './errors.js'
import { makeFork, type Fork, type ForkOptions } from './fork.js'
import { boundedAssembly } from './step-prepare.js'
import type { StepResult } from './step-types.js'

/** `agent.fork(options)` (see there), for the agent `parts` belong to. */
export async function forkOf<F extends WireFormat>(parts: AgentParts, options: ForkOptions<F>): Promise<Fork<F>> {
  const { agent } = parts
  if (parts.disposed) throw agentDisposed(agent.id)
  const format = (options?.format ?? parts.latestFormat ?? 'openai-chat') as F
  wireFormat(format)
  const measures = parts.measures
  return makeFork({
    agent, format, latest: parts.latestSteps.get(format), session: parts.wireSession(format), get reuse() { return measures.current() }, budget: parts.budget,
    record: () => parts.record, newest: () => parts.latest(), userInput: (input) => stepInput(agent.id, input), replies: () => parts.replies,
    assemble: async (opts) => parts.guidance.show(await boundedAssembly(parts, opts)),
    alive: () => { if (parts.disposed) throw agentDisposed(agent.id) },
    emit: (result) => parts.hooks.step(result as StepResult<WireFormat>), now: parts.now,
    system: (rendered) => agent.resumeGuard?.pinned(rendered) ?? rendered,
  }, options, (provider) => measures.counter(provider))
}

/** What a compaction borrows from the agent. */
export function compactionHost(parts: AgentParts): CompactionHost {
  const { agent } = parts
  return {
    agent, log: parts.epochs, reuse: parts.measures.current(),
    record: () => parts.record,
    assemble: (opts) => boundedAssembly(parts, opts),
    survival: () => new Map(parts.prompt.inspect(agent).sections.map((section) => [section.name, section.compaction])),
    latest: (format) => {
      const chosen = format ?? parts.latestFormat ?? 'openai-chat'
      wireFormat(chosen)
      const step = parts.latestSteps.get(chosen)
      return { format: chosen, provider: step?.provider ?? cacheProviderFor(chosen, undefined, agent.provider), input: step?.input ?? { conversationId: agent.id } }
    },
    counter: (provider) => parts.reuse.counter(provider),
    session: (format) => parts.wireSession(format),
    alive: () => { if (parts.disposed) throw agentDisposed(agent.id) },
    open: (epoch, baseline) => parts.openEpoch(epoch, baseline, true),
  }
}
