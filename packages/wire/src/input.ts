/**
 * What every wire format lowers: one conversation record, the tools one assembly offers, the model and
 * the prompt-change policy, plus the few options a single format reads.
 * @module
 */
import type { BreakpointOptions } from './breakpoints.js'
import type { PromptUpdateOverrides } from './prompt-updates.js'
import type { ConversationEntry, PromptChangePolicy, WireTool } from './record.js'

/** The input of every wire format. */
export interface WireInput {
  /** The append-only conversation record (`agent.conversation`). */
  record: readonly ConversationEntry[]
  /** The tools the assembly offers, in the assembly's order. */
  tools: readonly WireTool[]
  /** The model name sent in the body. */
  model: string
  /** How a changed system prompt enters the requests. */
  promptChange: PromptChangePolicy
  /**
   * A stable id of the conversation. `openai-responses` sends it as `prompt_cache_key`, which OpenAI
   * uses to route requests that share a prefix to the same cache; omitted when not given.
   */
  conversationId?: string
  /** `anthropic` only: `max_tokens`, which the Messages API requires (default 4096). */
  maxTokens?: number
  /**
   * The provider's own extra body fields (`stream`, `store`, `prompt_cache_retention`, ...), merged after
   * dsh's (`request-fields.ts`); a field dsh sets itself is refused with `WIRE_OWNED_FIELD`.
   */
  fields?: Readonly<Record<string, unknown>>
  /**
   * A deployment's overrides of the format's capability table (model-name prefix → `system-message` or
   * `marker`): how a system-prompt version after the opening is sent under `append` (`prompt-updates.ts`).
   */
  promptUpdates?: PromptUpdateOverrides
  /** `anthropic` only: how `cache_control` breakpoints are planned, or `false` for none (default: planned). */
  breakpoints?: BreakpointOptions | false
}
