/**
 * The shape of the per-request reuse report (R-CACHE-2): how much of a request repeats the same
 * agent's previous request byte for byte, what the provider's caching rules should serve from cache,
 * and, when the prefix broke, which part changed and why. Built by `dsh-agent` at every step from the
 * request's cache stream (`cache-stream.ts`) and the provider family's caching rules (`providers/`).
 * @module
 */
import type { WireFormat } from './format.js'
import type { PromptUpdateLowering } from './prompt-updates.js'
import type { ProviderMissJoin } from './provider-miss.js'
import type { Cost } from './prices.js'
import type { TtlPlan } from './ttl-plan.js'

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
  /** A self-hosted vLLM server with the default block size (`vllmFamily` makes one for another). */
  vllm: true
  /** A self-hosted SGLang server with the default page size (`sglangFamily` makes one for another). */
  sglang: true
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

/** How a tool of the live set differs from the previous request's declared tools (issue 21). */
export type ToolChangeKind = 'same' | 'added' | 'edited' | 'reordered' | 'removed'

/** One tool change a report names: the tool, its kind, its owner, how the request declares it, and its predicted cache cost (dsh-agent's `tool-changes.ts`). */
export interface ToolChange {
  tool: string
  kind: Exclude<ToolChangeKind, 'same'>
  /** The plugin that registered it (for a removed tool, the one that had), when known. */
  owner: string | null
  /**
   * `declared`: the request declares the live definition (or no longer declares a removed tool);
   * `inert`: still declared as before, a call answered `AGENT_TOOL_UNAVAILABLE`; `next-epoch`:
   * announced in a note, declared at the next epoch; `order-kept`: declared in the previous order;
   * `appended`: offered from this request on through the format's append path (`via`), the declared
   * tools unchanged (R-TOOL-13).
   */
  handling: 'declared' | 'inert' | 'next-epoch' | 'order-kept' | 'appended'
  /** Whether it changes the declared tools (the provider's prefix breaks there). */
  breaks: boolean
  /** The previous request's tokens (of the format) less this request's predicted cached tokens: what the break stops reading from cache (0 when it does not break). */
  cost: number
  /** Why an `append-path` tool was declared at once: the format has no append path, or it is closed for this request (`tool-append.ts`). */
  fallback?: string
  /**
   * An `inert` tool's sections (its guidance, shown with it) that stay in the system prompt as they were
   * last sent, byte for byte, until the next epoch, each with the plugin that had registered it.
   */
  kept?: { section: string; owner: string | null }[]
  /** The append path an `appended` tool went through, with its document. */
  via?: string
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
   * Set by `agent.record(reply)` when the diagnostics bridge is on and the reply carries the provider's
   * diagnosis: its reason beside dsh's own break, and whether they agree (`provider-miss.ts`).
   */
  providerMiss?: ProviderMissJoin
  /**
   * Set when the request carries a system-prompt version appended mid-conversation (`append`): how it
   * was lowered, natively as a system message or as a user message with the marker line (`prompt-updates.ts`).
   */
  promptUpdate?: PromptUpdateLowering
  /** Set when the agent's `wire.ttlPlan` is on and the format plans breakpoints: each breakpoint's TTL from the measured gaps, priced (`ttl-plan.ts`). */
  ttlPlan?: TtlPlan
  /**
   * Set by `agent.record(reply, { usage })` when the agent's `wire.prices` has a row for its model: this
   * request's cost (written, read, uncached, output) and the conversation's so far, in the table's currency.
   */
  cost?: { request: Cost; conversation: Cost }
  /**
   * Set on a side request's report (an `agent.fork()`'s): measured against the agent's latest request
   * of the format, and counted in none of the agent's figures (`turn` is the request it forks from).
   */
  side?: { kind: string }
  /** The tool changes since the agent's previous request, each with its owner, handling and cost, when there are any. */
  toolChanges?: ToolChange[]
}
