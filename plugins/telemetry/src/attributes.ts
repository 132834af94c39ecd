/**
 * What a span says about one request: the GenAI conventions' attributes from the step (provider,
 * model, conversation) and from the usage recorded with the reply (tokens, cache read and creation),
 * and dsh's `dsh.*` figures from the step's cache report and budget.
 * @module
 */
import type { Attributes } from '@opentelemetry/api'
import type { Agent, StepResult } from 'dsh-agent'
import type { CacheReport, Usage, WireFormat } from 'dsh-wire'
import { Dsh, GenAi, GenAiValues, PROVIDER_NAMES, type RequestKind } from './names.js'

/** `main`, `fork` (the result carries `side`) or `subagent` (the agent has a parent). */
export function requestKind(agent: Agent, result: StepResult<WireFormat>): RequestKind {
  if (result.side) return 'fork'
  return agent.parent ? 'subagent' : 'main'
}

/** The conventions' provider name for a dsh provider family. */
export function providerName(family: string): string {
  return PROVIDER_NAMES[family] ?? family
}

/**
 * The conversation a request belongs to: the Responses body's `prompt_cache_key` when it has one (a
 * harness's own conversation id, `StepOptions.conversationId`), else the agent's id.
 */
export function conversationId(agent: Agent, result: StepResult<WireFormat>): string {
  const key = (result.request as { prompt_cache_key?: unknown }).prompt_cache_key
  return typeof key === 'string' ? key : agent.id
}

/**
 * The attributes a span starts with (what a sampler sees): those known without the step's request
 * object or report, which are made on first read (measuring the report counts tokens).
 */
export function startAttributes(agent: Agent, result: StepResult<WireFormat>): Attributes {
  return {
    [GenAi.operationName]: GenAiValues.chat,
    [GenAi.requestModel]: agent.model,
    [GenAi.agentId]: agent.id,
    [Dsh.requestKind]: requestKind(agent, result),
  }
}

/** The attributes known once the step is made (its start attributes among them). */
export function stepAttributes(agent: Agent, result: StepResult<WireFormat>): Attributes {
  const { report, budget } = result
  const attributes: Attributes = {
    ...startAttributes(agent, result),
    [GenAi.providerName]: providerName(agent.provider ?? report.provider),
    [GenAi.conversationId]: conversationId(agent, result),
    [Dsh.wireFormat]: report.format,
    [Dsh.turn]: report.turn,
    [Dsh.requestTokens]: report.requestTokens,
    [Dsh.reusableTokens]: report.reusableTokens,
    [Dsh.predictedTokens]: report.predictedCachedTokens,
    [Dsh.tokenizer]: report.tokenizer,
    [Dsh.breakCount]: report.breaks.length,
    [Dsh.budgetAdvice]: budget.advice,
    [Dsh.budgetFill]: budget.fill,
  }
  if (result.side) attributes[Dsh.forkKind] = result.side.kind
  if (report.promptUpdate !== undefined) attributes[Dsh.promptUpdate] = report.promptUpdate
  if (report.limit !== undefined) attributes[Dsh.limit] = report.limit
  const first = report.breaks[0]
  if (first) {
    attributes[Dsh.breakKind] = first.kind
    attributes[Dsh.breakCause] = first.cause
    if (first.section !== null) attributes[Dsh.breakSection] = first.section
    if (first.owner !== null) attributes[Dsh.breakOwner] = first.owner
    if (first.layer !== null) attributes[Dsh.breakLayer] = first.layer
  }
  return attributes
}

/**
 * The attributes of the usage recorded with the reply. `inputTokens` is dsh's normalised figure, which
 * counts every input token, cached or not, in every provider's shape: what the conventions ask of
 * `gen_ai.usage.input_tokens`. A figure the provider did not report (`null`) is left out, never 0.
 */
export function usageAttributes(usage: Usage, report: Pick<CacheReport, 'mismatch' | 'providerMiss' | 'cost'>): Attributes {
  const attributes: Attributes = {}
  const figures: [string, number | null][] = [
    [GenAi.inputTokens, usage.inputTokens],
    [GenAi.outputTokens, usage.outputTokens],
    [GenAi.cacheReadInputTokens, usage.cachedReadTokens],
    [GenAi.cacheCreationInputTokens, usage.cacheWriteTokens],
    [Dsh.reportedTokens, usage.cachedReadTokens],
  ]
  for (const [name, value] of figures) if (value !== null) attributes[name] = value
  if (report.mismatch !== undefined) attributes[Dsh.mismatch] = report.mismatch
  // The provider's own reason (set when the reply was recorded, before its usage reaches the plugin).
  const miss = report.providerMiss
  if (miss !== undefined) {
    attributes[Dsh.providerMissReason] = miss.reason
    attributes[Dsh.providerMissClass] = miss.class
    attributes[Dsh.providerMissVerdict] = miss.verdict
    if (miss.missedTokens !== undefined) attributes[Dsh.providerMissTokens] = miss.missedTokens
  }
  if (report.cost !== undefined) {
    attributes[Dsh.cost] = report.cost.request.total
    attributes[Dsh.conversationCost] = report.cost.conversation.total
  }
  return attributes
}
