/**
 * One step of an agent (`agent.stepDetailed()`): the input checked, the step prepared
 * (`step-prepare.ts`), the changed system prompt and snapshot appended with the input and a tool note,
 * the record lowered by the format's session (a failure takes it all back: it records nothing), the
 * measures deferred to their first read (`deferred-measures.ts`), what the request was built with kept
 * for forks and children, and `agent/step` emitted once the step is whole.
 * @module
 */
import { renderAssembly } from 'dsh-system-prompt'
import {
  entry, isProvider, providerNames, WireSession, wireFormat,
  type ContentPart, type SessionBuild, type WireFormat,
} from 'dsh-wire'
import type { ScopeKey } from 'dsh-scope'
import type { AgentParts } from './agent-parts.js'
import { stepInput } from './agent-reply.js'
import { cacheProviderFor } from './cache-report.js'
import { stepEntries } from './conversation.js'
import type { StepMeasures } from './deferred-measures.js'
import { diagnosticsFields } from './diagnostics-bridge.js'
import { agentDisposed, unknownCacheRules } from './errors.js'
import { keepEntryParts, promptParts } from './ledger-parts.js'
import { ledgerToolsSent } from './ledger-tools.js'
import { boundedAssembly, planTools, stepGuidance } from './step-prepare.js'
import { StepOutcome } from './step-result.js'
import type { StepOptions, StepResult } from './step-types.js'

/** `agent.stepDetailed(input, options)` (see there), for the agent `parts` belong to. */
export async function runStep<F extends WireFormat, X extends object>(parts: AgentParts, input: string | readonly ContentPart[] | undefined, options: StepOptions<F, X>): Promise<StepResult<F>> {
  const { agent } = parts
  if (parts.disposed) throw agentDisposed(agent.id)
  const userInput = stepInput(agent.id, input)
  const format = (options.format ?? 'openai-chat') as F
  wireFormat(format) // throws WIRE_UNKNOWN_FORMAT for a format not registered
  if (options.cacheRules !== undefined && !isProvider(options.cacheRules)) throw unknownCacheRules(agent.id, options.cacheRules, providerNames())
  const provider = cacheProviderFor(format, options.cacheRules, agent.provider)
  const assembly = await boundedAssembly(parts, options)
  // The registration behind each tool, read once: the tool plan names owners with it, and the report keeps it.
  const origins = parts.toolOrigins()
  const tools = planTools(parts, format, assembly, origins)
  // An inert tool's sections stay as last sent (the tools it declares that the assembly no longer offers).
  const guidance = stepGuidance(parts, assembly, tools)
  const rendered = renderAssembly(assembly)
  // The counter is handed out at once; its tokenizer loads on the first count read (R-CACHE-10).
  const counter = await parts.measures.counter(provider)
  options.signal?.throwIfAborted()
  if (parts.disposed) throw agentDisposed(agent.id)
  if (parts.log.enabled()) {
    for (const section of rendered.sections) parts.log.write(`section=${section.name} bytes=${Buffer.byteLength(section.text, 'utf8')}`)
    parts.log.write(`total sections=${rendered.sections.length} bytes=${Buffer.byteLength(rendered.system, 'utf8')}`)
  }
  const now = parts.now()
  const planned = parts.truth.breakpoints(format, options.breakpoints)
  // The diagnostics bridge: the provider's comparison field, naming the previous reply of the format.
  const asked = agent.wire?.diagnostics ? diagnosticsFields(parts.record, format) : undefined
  const fields = asked === undefined ? options.fields : { ...asked, ...options.fields }
  const request = {
    tools: tools.declared, model: agent.model, promptChange: agent.promptChange, conversationId: options.conversationId ?? agent.routingKey,
    ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
    ...(planned.breakpoints === undefined ? {} : { breakpoints: planned.breakpoints }),
    ...(fields === undefined ? {} : { fields }),
    ...(agent.wire?.promptUpdates === undefined ? {} : { promptUpdates: agent.wire.promptUpdates }),
  }
  const layerOf = (scope: ScopeKey | undefined) => parts.reuse.layerOf(scope)
  // A restored agent's first step compares its prompt with the ledger's (resume-guard.ts); under `authoritative` it may send the stored one.
  const resume = agent.resumeGuard?.check({
    rendered, assembly, record: parts.record, latest: parts.latest(), format, provider, counter, layerOf, build: (record) => new WireSession(format).build({ record, ...request }),
  })
  const system = resume?.system ?? rendered.system
  const { snapshot } = rendered
  const added = stepEntries(parts.record, system, userInput, snapshot, parts.latest())
  // The note goes last: a format's append path sends its additions right after it (R-TOOL-13).
  if (tools.note !== undefined) added.push(entry(tools.additions.length ? { role: 'user', content: tools.note, toolAdditions: [...tools.additions] } : { role: 'user', content: tools.note }, 'user'))
  // A new version keeps its parts (the ledger writes them; ledger-parts.ts).
  if (added[0]?.source === 'system-prompt' && system === rendered.system) keepEntryParts(added[0], promptParts(rendered, assembly, layerOf))
  // The step appends, lowers only what is new (the session keeps the rest), and takes it all back if
  // the lowering fails: a failure records nothing.
  const before = parts.record.length
  const promptUpdated = agent.promptChange === 'append' && before > 0 && added.some((item) => item.source === 'system-prompt' && item.content)
  parts.record.push(...added)
  let build: SessionBuild<F>
  let measured: () => StepMeasures
  try {
    build = parts.wireSession(format).build({ record: parts.record, ...request })
    // A `live` child of a parent that had sent nothing when it was made starts from the parent's latest requests now.
    parts.inheritLate()
    // Measured on first read (deferred-measures.ts), in step order; what needs the report runs with it.
    measured = parts.measures.step({ format, provider, build, rendered, assembly, now, tools: origins }, counter, (report) => {
      parts.truth.measured(format, build as SessionBuild<WireFormat>, report, planned.plan, now)
      if (promptUpdated) report.promptUpdate = build.promptUpdate
      tools.report(report)
    })
    tools.commit()
    guidance.commit(rendered.sections, assembly)
    // The provider options (TTL plan, prices, diagnostics) carry figures from one request to the next: measured now.
    if (agent.wire !== undefined) measured()
  } catch (error) {
    parts.record.length = before
    throw error
  }
  // The ledger records the declared tools where they change (ledger-tools.ts).
  ledgerToolsSent(agent, tools.declared, added, parts.tools)
  const { conversationId, maxTokens, breakpoints } = options
  if (asked === undefined) parts.diagnosed.delete(format)
  else parts.diagnosed.add(format)
  parts.latestSteps.set(format, {
    provider, tools: tools.declared,
    input: {
      conversationId: conversationId ?? agent.routingKey, ...(maxTokens === undefined ? {} : { maxTokens }), ...(breakpoints === undefined ? {} : { breakpoints }),
      ...(fields === undefined ? {} : { fields }), ...(agent.wire?.promptUpdates === undefined ? {} : { promptUpdates: agent.wire.promptUpdates }),
    },
  })
  parts.latestFormat = format
  parts.sent = parts.record.length
  if (resume) agent.resumeGuard!.commit(resume)
  // The report and budget are measured on first read, so a harness that reads no count loads no tokenizer.
  const result = new StepOutcome(build, format, measured, assembly, rendered, system, snapshot, added)
  if (resume?.report) result.resume = resume.report
  const epoch = parts.epochs.stepped()
  if (epoch) result.epoch = epoch
  // The step is whole: its listeners cannot undo it or make it reject (their failures are logged).
  parts.hooks.step(result as StepResult<WireFormat>)
  return result
}
