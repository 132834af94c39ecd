/**
 * The attribute and metric names the plugin writes. The `gen_ai.*` ones are the OpenTelemetry GenAI
 * semantic conventions' (the incubating exports of `@opentelemetry/semantic-conventions` 1.45.0; the
 * tests compare each against that package's constant). They are written out here, not imported, so
 * that the plugin needs nothing beyond the optional `@opentelemetry/api` at run time. The `dsh.*` ones
 * are dsh's own: no convention says what a cache was predicted to serve or why it broke.
 * @module
 */

/** The GenAI conventions' names. */
export const GenAi = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  conversationId: 'gen_ai.conversation.id',
  agentId: 'gen_ai.agent.id',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  cacheReadInputTokens: 'gen_ai.usage.cache_read.input_tokens',
  cacheCreationInputTokens: 'gen_ai.usage.cache_creation.input_tokens',
  systemInstructions: 'gen_ai.system_instructions',
  inputMessages: 'gen_ai.input.messages',
  tokenType: 'gen_ai.token.type',
  /** The metric: a histogram of tokens per request, by `gen_ai.token.type`. */
  tokenUsage: 'gen_ai.client.token.usage',
} as const

/** The conventions' values used here (`gen_ai.operation.name`, `gen_ai.token.type`). */
export const GenAiValues = {
  chat: 'chat',
  input: 'input',
  output: 'output',
} as const

/**
 * `gen_ai.provider.name` for dsh's provider families whose conventional name differs from dsh's; a
 * family not listed (deepseek, openai, anthropic, moonshot, qwen...) is written as dsh names it.
 */
export const PROVIDER_NAMES: Readonly<Record<string, string>> = Object.freeze({ gemini: 'gcp.gemini', xai: 'x_ai' })

/** dsh's own names. */
export const Dsh = {
  requestKind: 'dsh.request.kind',
  forkKind: 'dsh.fork.kind',
  wireFormat: 'dsh.wire.format',
  turn: 'dsh.cache.turn',
  requestTokens: 'dsh.cache.request_tokens',
  reusableTokens: 'dsh.cache.reusable_tokens',
  predictedTokens: 'dsh.cache.predicted_tokens',
  tokenizer: 'dsh.cache.tokenizer',
  limit: 'dsh.cache.limit',
  reportedTokens: 'dsh.cache.reported_tokens',
  mismatch: 'dsh.cache.mismatch',
  breakCount: 'dsh.break.count',
  breakSection: 'dsh.break.section',
  breakKind: 'dsh.break.kind',
  breakOwner: 'dsh.break.owner',
  breakLayer: 'dsh.break.layer',
  breakCause: 'dsh.break.cause',
  /** The provider's own diagnosis of the request's cache use (the diagnostics bridge), and how it compares with dsh's break. */
  providerMissReason: 'dsh.provider.miss.reason',
  providerMissClass: 'dsh.provider.miss.class',
  providerMissVerdict: 'dsh.provider.miss.verdict',
  providerMissTokens: 'dsh.provider.miss.tokens',
  /** How a prompt version appended mid-conversation was sent (`system-message`, `marker`). */
  promptUpdate: 'dsh.prompt.update',
  /** The request's cost from the deployment's price table, in its currency. */
  cost: 'dsh.cost.request',
  conversationCost: 'dsh.cost.conversation',
  budgetAdvice: 'dsh.budget.advice',
  budgetFill: 'dsh.budget.fill',
  /** The span event of one prompt part, and its attributes. */
  partEvent: 'dsh.prompt.part',
  partName: 'dsh.prompt.part.name',
  partType: 'dsh.prompt.part.type',
  partOwner: 'dsh.prompt.part.owner',
  partLayer: 'dsh.prompt.part.layer',
  partHash: 'dsh.prompt.part.hash',
  partTokens: 'dsh.prompt.part.tokens',
  /** The two cache metrics: histograms of tokens per request read from and written to the provider's cache. */
  cacheReadUsage: 'dsh.client.token.cache_read',
  cacheWriteUsage: 'dsh.client.token.cache_write',
} as const

/** What `dsh.request.kind` says: the agent's own request, a fork's side request, or a subagent's request. */
export type RequestKind = 'main' | 'fork' | 'subagent'
