/**
 * `dsh-wire`: the conversation record lowered to each provider's request body as pure functions
 * (`openai-chat`, `openai-responses`, `anthropic`, `gemini`), Anthropic cache breakpoints planned,
 * and one usage record (`normalizeUsage`). Cordis-free.
 * @module
 */
export { buildRequest, WIRE_FORMATS } from './format.js'
export type { RequestBodies, RequestBody, WireFormat } from './format.js'
export type { WireInput } from './input.js'
export {
  callsById, entry, lastOf, latestClear, parseArguments, placeEntry, sentEntries, splitOpening, SYSTEM_PROMPT_UPDATE_MARKER, systemUpdateText,
} from './record.js'
export type {
  AssistantMessage, ChatMessage, ConversationEntry, CustomToolCall, EntrySource, FunctionToolCall, PromptChangePolicy, SystemMessage, ToolCall,
  ToolMessage, UserMessage, WireTool,
} from './record.js'
export { buildMessages, openaiChatRequest, toRequestTool } from './openai-chat.js'
export type { ChatRequest, RequestTool } from './openai-chat.js'
export { openaiResponsesRequest } from './openai-responses.js'
export type {
  ResponsesCallOutputItem, ResponsesCustomCallItem, ResponsesFunctionCallItem, ResponsesInputItem, ResponsesMessageItem, ResponsesRequest, ResponsesTool,
} from './openai-responses.js'
export { anthropicRequest, DEFAULT_MAX_TOKENS } from './anthropic.js'
export type { AnthropicBlock, AnthropicMessage, AnthropicRequest, AnthropicTextBlock, AnthropicTool, AnthropicToolResultBlock, AnthropicToolUseBlock } from './anthropic.js'
export { applyBreakpoints, BREAKPOINT_KINDS, estimateTokens, LOOKBACK_BLOCKS, MAX_BREAKPOINTS, planBreakpoints, previousEnd } from './breakpoints.js'
export type { Breakpoint, BreakpointKind, BreakpointOptions, CacheControl, CacheTtl } from './breakpoints.js'
export { CACHE_MINIMUMS, DEFAULT_CACHE_MINIMUM, minimumTokens } from './cache-minimums.js'
export { geminiRequest } from './gemini.js'
export type { GeminiConfig, GeminiContent, GeminiFunctionDeclaration, GeminiPart, GeminiRequest } from './gemini.js'
export { isUsage, normalizeUsage, USAGE_FORMATS } from './usage.js'
export type { Usage, UsageFormat } from './usage.js'
export * as WireErrors from './errors.js'
export { BREAK_CAUSES } from './cache-report.js'
export type { BreakCause, CacheBreak, CacheProvider, CacheReport } from './cache-report.js'
export { CACHE_STREAM_ORDER, cacheStream, canonicalJson, commonPrefix, streamPart } from './cache-stream.js'
export type { CacheStream, StreamPart, StreamRegion } from './cache-stream.js'
export {
  ANTHROPIC_LOOKBACK, anthropicCachedTokens, DEEPSEEK_UNIT, deepseekCachedTokens, geminiCachedTokens, geminiMinimum, OPENAI_INCREMENT, OPENAI_MINIMUM,
  openaiCachedTokens, TTL_MS,
} from './caching-rules.js'
export type { AnthropicPrediction, CacheEntry, CachePoint } from './caching-rules.js'
export { tokenCounter } from './tokenizers.js'
export type { TokenCounter } from './tokenizers.js'
export { streamHead } from './cache-stream.js'
export { WireSession } from './session.js'
export type { CallLookup, SessionBuild } from './session.js'
export { markBreakpoints, planFrom, summarize } from './breakpoints.js'
export type { PlanSummary } from './breakpoints.js'
export { DEFAULT_MODEL_PROFILE, inputBudget, MODEL_PROFILES, MODEL_PROFILES_CHECKED, modelProfile, overrideProblem, profileRow } from './model-profiles.js'
export type { ModelProfile, ModelProfileOverride, ModelProfileRow, ProfileOrigin, TokenizerExactness } from './model-profiles.js'
