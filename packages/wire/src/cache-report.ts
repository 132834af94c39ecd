/**
 * The shape of the per-request reuse report (R-CACHE-2): how much of a request repeats the same
 * agent's previous request byte for byte, what the provider's caching rules should serve from cache,
 * and, when the prefix broke, which part changed and why. Built by `dsh-agent` at every step from the
 * request's cache stream (`cache-stream.ts`) and the provider family's caching rules (`providers/`).
 * @module
 */
import type { WireFormat } from './format.js'

/**
 * The provider families whose caching rules the report models, by name. A module that registers
 * another family adds its name here (`declare module 'dsh-wire' { interface CacheProviders { 'my-family': true } }`).
 */
export interface CacheProviders {
  openai: true
  anthropic: true
  deepseek: true
  gemini: true
  xai: true
  moonshot: true
  qwen: true
  /** A self-hosted llama.cpp server (`llamaCppFamily`, registered by the harness for its model). */
  'llama.cpp': true
}

/** A provider family whose caching rules the report models. */
export type CacheProvider = keyof CacheProviders

/**
 * The class every break cause starts with (R-CACHE-6), so a reader can group causes without parsing
 * the words that follow.
 */
export const BREAK_CAUSES = [
  'section text changed', 'section added', 'section removed', 'order changed', 'variable value changed',
  'tool added', 'tool removed', 'tool schema changed', 'tool order changed', 'system prompt replaced', 'model changed',
  'message changed',
] as const

/** A break cause's class. */
export type BreakCause = (typeof BREAK_CAUSES)[number]

/** Where the first diverging byte of a request falls, and why it changed. */
export interface CacheBreak {
  /**
   * The index of the message the first diverging byte falls in (in the request's own message list:
   * `messages`, `input` or `contents`), or `null` when it falls in the tools, the top-level system
   * prompt or the model.
   */
  message: number | null
  /** The section, runtime context or tool whose bytes diverge first, or `null` (a whole message, the model). */
  section: string | null
  /** What `section` names. */
  kind: 'section' | 'context' | 'tool' | 'message' | 'model'
  /** The plugin that owns the part (or the listener's plugin that last changed or removed it), when known. */
  owner: string | null
  /** The owner's layer (`deployment`, `preset`, `agent`, `scope`...), when known. */
  layer: string | null
  /** In words, starting with one of {@link BREAK_CAUSES}. */
  cause: string
}

/** The reuse report of one request. */
export interface CacheReport {
  /** The wire format of the request. */
  format: WireFormat
  /** The provider whose caching rules gave `predictedCachedTokens`. */
  provider: CacheProvider
  /** The agent's request count, from 1. */
  turn: number
  /** UTF-8 bytes of the request's cache stream. */
  requestBytes: number
  /** Bytes of the longest common prefix with the previous request's stream (0 on the first request). */
  reusableBytes: number
  /** The stream in tokens of the provider family's tokenizer. */
  requestTokens: number
  /** The reusable prefix in tokens. */
  reusableTokens: number
  /** What the provider's documented rules would serve from cache. */
  predictedCachedTokens: number
  /** How tokens were counted: an exact tokenizer, or an estimate (Anthropic publishes none). */
  tokenizer: string
  /** Empty unless the prefix broke (`reusableBytes` below the previous request's `requestBytes`). */
  breaks: CacheBreak[]
  /**
   * Why the provider's rules serve less than the shared prefix, when they do, naming the rule (from
   * the family's module under `providers/`): below the minimum, unit granularity, every entry expired (the TTL), no
   * breakpoint within the lookback... A prefix that did not break can still be a cache miss; this says why.
   */
  limit?: string
  /** Set by `agent.record(reply, { usage })`: the cached tokens the provider reported, or `null` when it reported none. */
  reportedCachedTokens?: number | null
  /** Set with `reportedCachedTokens` when it differs from the prediction: the likely reason. */
  mismatch?: string
  /**
   * Set on a side request's report (an `agent.fork()`'s): measured against the agent's latest request
   * of the format, and counted in none of the agent's figures (`turn` is the request it forks from).
   */
  side?: { kind: string }
}
