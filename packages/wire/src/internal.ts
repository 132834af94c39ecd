/**
 * `dsh-wire/internal`: what the built-in format and provider-family modules are made of, for
 * `dsh-agent` and the tests. Not a stable API: a harness uses the package root.
 * @module
 */
export { anthropicBody, anthropicElements, anthropicFormat } from './anthropic.js'
export { chatBody, chatElements, openaiChatFormat, wire } from './openai-chat.js'
export { openaiResponsesFormat, responsesBody, responsesElements } from './openai-responses.js'
export { geminiBody, geminiElements, geminiFormat } from './gemini.js'
export { anthropicPlanner, blockText, estimateTokens, markBreakpoints, markedMessage, planFrom, previousEnd, summarize } from './breakpoints.js'
export type { PlanSummary } from './breakpoints.js'
export { headOf, streamOf } from './format-stream.js'
export type { HeadMemo } from './cache-stream.js'
export { latestClear, parseArguments, placeEntry, sentEntries, systemUpdateText, userText } from './record.js'
export { streamHead } from './requests.js'
export { canonicalJson } from './cache-stream.js'
export { BREAKPOINT_KINDS } from './breakpoints.js'
export { DEFAULT_CACHE_MINIMUM } from './cache-minimums.js'
export { markerCachedTokens, TTL_MS } from './caching-rules.js'
export type { AnthropicPrediction, MarkerCacheInput, MarkerCacheRules } from './caching-rules.js'
export { mismatchReason, usageShapes } from './providers/registry.js'
export { openai, OPENAI_INCREMENT, OPENAI_MINIMUM, openaiCachedTokens, readChatUsage, readResponsesUsage } from './providers/openai.js'
export { deepseek, DEEPSEEK_UNIT, deepseekCachedTokens } from './providers/deepseek.js'
export { gemini, geminiCachedTokens, geminiMinimum } from './providers/gemini.js'
export { anthropic, ANTHROPIC_LOOKBACK, anthropicCachedTokens, ANTHROPIC_SYSTEM_MESSAGES } from './providers/anthropic.js'
export { xai, XAI_BLOCK, xaiCachedTokens } from './providers/xai.js'
export { moonshot, MOONSHOT_CHUNK, moonshotCachedTokens } from './providers/moonshot.js'
export {
  qwen, QWEN_EXPLICIT_MINIMUM, QWEN_IMPLICIT_MINIMUM, QWEN_LOOKBACK, QWEN_MAX_MARKERS, qwenExplicitCachedTokens, qwenImplicitCachedTokens,
} from './providers/qwen.js'
export { CHARACTERS_ESTIMATE, deepseekCounter, labelled, loadO200k } from './tokenizers.js'
export { boundedPieces, countInPieces, countIsEstimate, encodeInPieces, FULL_PIECES, SAMPLE_STRIDE } from './bounded-count.js'
export { overrideProblem, profileRow } from './model-profiles.js'
export { ANTHROPIC_TOOL_RULES, assertTools, GEMINI_TOOL_RULES, OPENAI_TOOL_RULES, problemsUnder } from './tool-rules.js'
export { MERGE_CACHE_ENTRIES } from './o200k.js'
export { loadedTokenizers } from './tokenizer-modules.js'
