/**
 * What an agent records: `step()`'s input as the record keeps it, and `agent.record()`, which appends
 * the model's reply or a tool result (made by `recorded-entry.ts`), counts the reply, keeps the facts of
 * the request it answers, reconciles its usage with the step's measures and emits `agent/usage`.
 * @module
 */
import { deepFreeze, PromptErrors } from 'dsh-system-prompt/internal'
import { checkContentParts, usageShapeFor, type ContentPart } from 'dsh-wire'
import type { AgentParts } from './agent-parts.js'
import type { UserInput } from './conversation.js'
import { agentDisposed, invalidInput } from './errors.js'
import { keepEntryRequest } from './ledger-request.js'
import { ledgerToolsRecorded } from './ledger-tools.js'
import { recordedEntry } from './recorded-entry.js'
import type { ProviderReply, RecordedMessage, RecordOptions } from './step-types.js'
import { unavailableCalls, type UnavailableCall } from './tool-unavailable.js'

/** `step()`'s input as the record keeps it: a string, or content parts checked, copied and frozen with their text as `content`. */
export function stepInput(agentId: string, input: unknown): string | UserInput | undefined {
  if (input === undefined || typeof input === 'string') return input
  if (!Array.isArray(input)) throw invalidInput(agentId)
  const content = input.filter((part) => part?.type === 'text' && typeof part.text === 'string').map((part) => part.text as string).join('')
  try {
    checkContentParts(input, content)
    return { content, parts: deepFreeze(structuredClone(input), 'parts') as ContentPart[] }
  } catch (error) {
    throw invalidInput(agentId, PromptErrors.messageOf(error))
  }
}

/** `agent.record(message, options)` (see there): appends the entry and returns the calls to tools the agent cannot run now. */
export function recordReply(parts: AgentParts, message: RecordedMessage | ProviderReply, options: RecordOptions): UnavailableCall[] {
  const { agent } = parts
  if (parts.disposed) throw agentDisposed(agent.id)
  const latest = parts.latestFormat
  const { item, usage } = recordedEntry(agent.id, message, options, parts.replies, {
    shape: usageShapeFor(latest ?? 'openai-chat', agent.provider), diagnosed: latest !== undefined && parts.diagnosed.has(latest),
  })
  parts.record.push(item)
  ledgerToolsRecorded(agent, item)
  if (item.source === 'assistant') {
    parts.replies++
    // The TTL plan's measure of the request this reply answers goes in the reply's ledger line.
    const request = parts.truth.answered()
    if (request) keepEntryRequest(item, request)
  }
  const unavailable = unavailableCalls(agent.id, item, parts.tools.unavailable)
  // Each in step order, after the measurements still waiting (deferred-measures.ts).
  if (item.reply?.miss !== undefined && agent.wire?.diagnostics) {
    const miss = item.reply.miss
    parts.measures.after(() => parts.reuse.joinProviderMiss(miss))
  }
  if (!usage) return unavailable
  parts.epochs.replied(usage, agent.model)
  parts.measures.reconcile(usage, parts.now())
  parts.measures.after(() => parts.truth.priced(usage))
  // Cordis's emit throws a listener's failure at the emitter: the reply is recorded, so it is only logged.
  parts.hooks.usage(usage)
  return unavailable
}
