/**
 * `dsh-wire`: the conversation record lowered to each provider's request body (`openai-chat`,
 * `openai-responses`, `anthropic`, `gemini`, and any format registered with `registerWireFormat`), a
 * `WireSession` that extends a body request by request, the cache stream a provider hashes, and the
 * provider families (tokenizer, usage shapes, caching rules) the reuse report is generic over
 * (`registerProvider`). Cordis-free. What a format or family module is built from lives in
 * `dsh-wire/internal`.
 * @module
 */
export {
  buildRequest, cacheStream, openaiChatRequest, openaiResponsesRequest, anthropicRequest, geminiRequest, requestHeaders,
} from './requests.js'
export { registerWireFormat, wireFormat, wireFormatNames, WIRE_FORMATS } from './format.js'
export type { RequestBodies, RequestBody, WireFormat } from './format.js'
export type { BreakpointPlanner, CallLookup, PlannerState, ToolPartMakers, WireFormatModule } from './format-module.js'
export { objectSchemaRule, type ToolNameRule, type ToolParametersRule, type ToolProblem, type ToolRules } from './tool-rules.js'
export { toolProblems } from './tool-check.js'
export type { WireInput } from './input.js'
export { PROMPT_UPDATE_LOWERINGS, promptUpdateLowering } from './prompt-updates.js'
export type { PromptUpdateCapability, PromptUpdateLowering, PromptUpdateOverrides, SystemMessageTable } from './prompt-updates.js'
export type { AnthropicFields, ChatFields, GeminiFields, RequestFields, RequestFieldsOf, ResponsesFields } from './request-fields.js'
export { entry, lastOf, SYSTEM_PROMPT_UPDATE_MARKER } from './record.js'
export type {
  AssistantMessage, ChatMessage, ConversationEntry, CustomToolCall, EntrySource, FunctionToolCall, PromptChangePolicy, ReplyFacts, SystemMessage, ToolCall,
  ToolMessage, UserMessage, WireTool,
} from './record.js'
export { REASONING_FORMATS } from './parts.js'
export type {
  AnthropicRedactedThinkingBlock, AnthropicThinkingBlock, ContentPart, DocumentPart, GeminiThoughtPart, ImagePart, ReasoningPart, ReplyPart,
  ResponsesReasoningItem, TextPart, ToolCallPart,
} from './parts.js'
export { checkContentParts, checkReplyParts } from './parts-check.js'
export { readReply, replyAccumulator, replyFormatOf, REPLY_FORMATS } from './replies/index.js'
export type { Replies, ReplyFormat } from './replies/index.js'
export type { ReadReply, ReadReplyOptions, ReplyAccumulator } from './replies/reply.js'
export type { ChatReply } from './replies/openai-chat-reply.js'
export type { ResponsesReply } from './replies/openai-responses-reply.js'
export type { AnthropicReply } from './replies/anthropic-reply.js'
export type { GeminiReply } from './replies/gemini-reply.js'
export { buildMessages, toRequestTool } from './openai-chat.js'
export type { ChatContentPart, ChatRequest, ChatRequestMessage, RequestTool } from './openai-chat.js'
export type {
  ResponsesCallOutputItem, ResponsesContentPart, ResponsesCustomCallItem, ResponsesFunctionCallItem, ResponsesInputItem, ResponsesMessageItem, ResponsesRequest, ResponsesTool,
} from './openai-responses.js'
export { ANTHROPIC_CACHE_DIAGNOSIS_BETA, DEFAULT_MAX_TOKENS } from './anthropic.js'
export type {
  AnthropicBlock, AnthropicDocumentBlock, AnthropicImageBlock, AnthropicImageType, AnthropicThinkingParam, AnthropicMessage, AnthropicRequest, AnthropicTextBlock,
  AnthropicTool, AnthropicToolResultBlock, AnthropicToolUseBlock, AnthropicBetaRequest, AnthropicToolAdditionBlock, AnthropicToolChangeMessage,
} from './anthropic.js'
export { toolAppendChoice } from './tool-append.js'
export type { ToolAppendCapability, ToolAppendChoice, ToolAppendPath, ToolAppendQuestion } from './tool-append.js'
export type { GeminiConfig, GeminiContent, GeminiFunctionDeclaration, GeminiPart, GeminiRequest } from './gemini.js'
export { LOOKBACK_BLOCKS, MAX_BREAKPOINTS, planBreakpoints } from './breakpoints.js'
export type { Breakpoint, BreakpointKind, BreakpointOptions, CacheControl, CacheTtl } from './breakpoints.js'
export { CACHE_MINIMUMS, minimumTokens } from './cache-minimums.js'
export { WireSession } from './session.js'
export type { SessionBuild } from './session.js'
export { commonPrefix, streamPart } from './cache-stream.js'
export { namedToolParts } from './format-stream.js'
export type { CacheStream, StreamPart, StreamRegion } from './cache-stream.js'
export {
  cacheProviderFor, isProvider, normalizeUsage, PROVIDER_FAMILIES, providerFamily, providerNames, registerProvider, tokenCounter, usageShapeFor,
} from './providers/registry.js'
export { llamaCppFamily, llamaCppCachedTokens } from './providers/llama-cpp.js'
export { vllmFamily, vllmCachedTokens, VLLM_BLOCK, type VllmOptions } from './providers/vllm.js'
export { sglangFamily, sglangCachedTokens, SGLANG_PAGE, type SglangOptions } from './providers/sglang.js'
export type { LlamaCppOptions } from './providers/llama-cpp.js'
export { DSH_CHAT_TEMPLATE } from './providers/llama-cpp-template.js'
export { readGgufMetadata } from './providers/gguf.js'
export type { GgufMetadataValue } from './providers/gguf.js'
export type { CacheAnswer, CacheQuestion, MismatchQuestion, ProviderFamily, RoutingKeys, UsageReader } from './provider-family.js'
export type { CacheEntry, CachePoint } from './caching-rules.js'
export { cachePricesOf, UNDECLARED_CACHE_PRICES } from './cache-prices.js'
export type { CachePrices } from './cache-prices.js'
export { isUsage, tokenCount, usageObject, usageRecord } from './usage.js'
export type { Usage, UsageFormat, UsageShapes } from './usage.js'
export { MAX_PIECE } from './bounded-count.js'
export type { BoundedCount } from './bounded-count.js'
export { loadO200k } from './o200k.js'
export type { O200kEncoding } from './o200k.js'
export type { TokenCounter } from './tokenizers.js'
export { BREAK_CAUSES } from './cache-report.js'
export { planTtl, segmentCost, TOKEN_EQUIVALENTS } from './ttl-plan.js'
export type { TtlPlan, TtlSegment, TtlSegmentInput } from './ttl-plan.js'
export { addCosts, costOf, priceOf, priceProblem } from './prices.js'
export type { Cost, ModelPrice, PriceTable } from './prices.js'
export { anthropicMiss, breakPart, joinMiss, responsesMiss } from './provider-miss.js'
export type { ProviderMiss, ProviderMissClass, ProviderMissJoin } from './provider-miss.js'
export type { BreakCause, CacheBreak, CacheProvider, CacheProviders, CacheReport, ToolChange, ToolChangeKind } from './cache-report.js'
export * as WireErrors from './errors.js'
export { DEFAULT_MODEL_PROFILE, inputBudget, MODEL_PROFILES, MODEL_PROFILES_CHECKED, modelProfile } from './model-profiles.js'
export type { ModelProfile, ModelProfileOverride, ModelProfileRow, ProfileOrigin, TokenizerExactness } from './model-profiles.js'
