/**
 * What `record()` makes of a reply or a tool result, for an agent and for a fork alike: a whole
 * provider reply read by its format's reader, the message checked and copied by `entry-shape.ts`, the
 * usage normalised. Nothing is appended here.
 * @module
 */
import { PromptErrors } from 'dsh-system-prompt/internal'
import { entry, isUsage, normalizeUsage, readReply, replyFormatOf, type ReplyFacts, type Usage, type UsageFormat } from 'dsh-wire'
import type { ProviderReply, RecordedMessage, RecordOptions } from './step-types.js'
import type { ConversationEntry } from './conversation.js'
import { EntryShapeError, fail, replyFactsShape, replyShape, toolResultShape, usageShape } from './entry-shape.js'
import { invalidRecord } from './errors.js'

/**
 * The entry `message` records as, with its usage. `id`: the agent's (errors name it); `turn`: the
 * replies recorded before it (Gemini's ids for calls without one count them); `context.shape`: what a
 * usage object given without a format is read as (the agent's provider's shape, `usageShapeFor`);
 * `context.diagnosed`: the request asked the provider for its cache diagnosis (the diagnostics bridge).
 */
export function recordedEntry(
  id: string, message: RecordedMessage | ProviderReply, options: RecordOptions, turn: number, context: { shape?: UsageFormat; diagnosed?: boolean } = {},
): { item: ConversationEntry; usage: Usage | undefined } {
  const { shape } = context
  if (typeof message !== 'object' || message === null) throw invalidRecord(id, 'expected a message object')
  const replyFormat = options.format === undefined ? undefined : replyFormatOf(options.format, message)
  let given = message as RecordedMessage
  let facts: ReplyFacts | undefined
  if (replyFormat !== undefined) {
    const read = readReply(replyFormat, message, { turn, usage: options.format, ...(context.diagnosed ? { diagnosed: true } : {}) })
    given = read.message
    if (read.id !== undefined) facts = { id: read.id, format: replyFormat, ...(read.miss ? { miss: read.miss } : {}) }
    if (options.usage === undefined && read.usage !== undefined) options = { usage: read.usage, ...(options.reply === undefined ? {} : { reply: options.reply }) }
  }
  try {
    const usage = usageOf(given, options.format === undefined && options.usage !== undefined && !isUsage(options.usage) && shape !== undefined ? { ...options, format: shape } : options)
    if (options.reply !== undefined) facts = replyFactsShape(options.reply)
    if (given.role === 'assistant') return { item: entry(replyShape(given), 'assistant', usage, facts), usage }
    if (facts !== undefined) fail('reply (the provider\'s id and diagnosis) belongs to an assistant reply, not a tool result')
    if (given.role === 'tool') return { item: entry(toolResultShape(given), 'tool'), usage }
    fail(`role must be "assistant" or "tool" (user input goes through step(input)), received ${JSON.stringify((given as { role?: unknown }).role)}`)
  } catch (error) {
    if (error instanceof EntryShapeError) throw invalidRecord(id, error.problem)
    if ((error as { code?: unknown })?.code !== undefined) throw error
    throw invalidRecord(id, `the message cannot be read: ${PromptErrors.messageOf(error)}`)
  }
}

function usageOf(message: RecordedMessage, options: RecordOptions): Usage | undefined {
  if (options.usage === undefined) return undefined
  if (message.role !== 'assistant') fail('usage belongs to an assistant reply, not a tool result')
  // A provider's figures are normalised first; their sum can still overflow, so the result is checked too.
  if (options.format !== undefined) {
    const read = normalizeUsage(options.format, options.usage)
    // A usage object of another provider's shape reads as all "not reported": refused, not guessed at.
    if (read.inputTokens === null && read.cachedReadTokens === null && read.cacheWriteTokens === null && read.outputTokens === null) {
      fail(`usage carries none of the ${options.format} usage fields (it has ${Object.keys(options.usage as object).map((key) => JSON.stringify(key)).join(', ') || 'no field'}): name its format with record(reply, { usage, format })`)
    }
    return usageShape(read, `usage (as ${options.format} reported it)`)
  }
  return usageShape(options.usage)
}
