/**
 * Anthropic `cache_control` breakpoints, planned (R-WIRE-6). The Messages API caches the prefix up to
 * each breakpoint in the order tools, system, messages. The plan:
 * - candidates, in that order: the end of `tools`, the end of `system`, the **stable** point (the end of
 *   what the previous request sent, so this request reads it exactly) and the **tail** (the last block,
 *   written for the next request);
 * - none whose prefix is below the model family's minimum cacheable length (`minimumTokens`);
 * - at most four (`max`); when over budget, a stable point the tail's 20-block lookback already reaches
 *   goes first, then tools, system and the stable point, never the tail;
 * - a TTL per kind (`5m` default, `1h`), and a `1h` never after a `5m` one.
 * Token counts are estimates (`countTokens`, default: characters / 4) unless the caller passes a counter.
 * @module
 */
import type { AnthropicBlock, AnthropicMessage, AnthropicRequest, AnthropicToolAdditionBlock } from './anthropic.js'
import { invalidBreakpoints } from './errors.js'
import { minimumTokens } from './cache-minimums.js'
import type { BreakpointPlanner, PlannerState } from './format-module.js'
import type { WireInput } from './input.js'
import type { ConversationEntry } from './record.js'

/** A cache lifetime the Messages API accepts. */
export type CacheTtl = '5m' | '1h'

/** A `cache_control` marker (`ttl` omitted means the API default, 5 minutes). */
export interface CacheControl { type: 'ephemeral'; ttl?: CacheTtl }

/** Where a breakpoint goes, in the order the API hashes the request. */
export type BreakpointKind = 'tools' | 'system' | 'stable' | 'tail'

/** The order breakpoints are hashed in (tools, system, messages). */
export const BREAKPOINT_KINDS: readonly BreakpointKind[] = ['tools', 'system', 'stable', 'tail']

/** The most breakpoints one request may carry. */
export const MAX_BREAKPOINTS = 4

/** How many blocks before a breakpoint the API checks for an earlier cache entry. */
export const LOOKBACK_BLOCKS = 20

/** Options of the planner. */
export interface BreakpointOptions {
  /** At most this many breakpoints, 1 to 4 (default 4). */
  max?: number
  /** TTL per kind (default `5m` each); a `1h` kind may not follow a `5m` kind in `BREAKPOINT_KINDS` order. */
  ttl?: Partial<Record<BreakpointKind, CacheTtl>>
  /** The minimum cacheable prefix in tokens, instead of the model family's (`CACHE_MINIMUMS`). */
  minTokens?: number
  /** Extra or overriding family minimums, by model-name prefix (the longest matching prefix wins). */
  minimums?: Readonly<Record<string, number>>
  /** Counts the tokens of a text (default: an estimate, `Math.ceil(length / 4)`). */
  countTokens?: (text: string) => number
}

/** One planned breakpoint: which block, the prefix it caches (estimated tokens) and its TTL. */
export interface Breakpoint {
  kind: BreakpointKind
  /** `tools[index]`, `system[index]` or `messages[index].content[block]`. */
  where: 'tools' | 'system' | 'messages'
  index: number
  block?: number
  prefixTokens: number
  ttl: CacheTtl
}

/**
 * What the planner reads of a request: token counts up to each candidate point and block counts. The
 * session keeps these as running sums, so planning does not walk the whole conversation each step.
 */
export interface PlanSummary {
  readonly model: string
  /** Tokens of all tools, and how many there are. */
  readonly toolsTokens: number
  readonly toolCount: number
  /** Tokens of the system blocks, and how many there are. */
  readonly systemTokens: number
  readonly systemBlocks: number
  readonly messageCount: number
  /** Tokens of messages `0..index` (after tools and system). */
  tokensThrough(index: number): number
  /** How many content blocks message `index` has. */
  blocksOf(index: number): number
  /** How many content blocks the messages after `index` have in all. */
  blocksAfter(index: number): number
}

/**
 * Plans the breakpoints of `request` (built without any). `stableMessage` is the index of the message
 * that ended the previous request (`-1` for none, as on the first request).
 */
export function planBreakpoints(request: AnthropicRequest, stableMessage: number, options: BreakpointOptions = {}): Breakpoint[] {
  return planFrom(summarize(request, counterOf(options)), stableMessage, options)
}

/** The token counter of `options` (`countTokens`, else the estimate); one that is not a function is `WIRE_INVALID_BREAKPOINTS`. */
export function counterOf(options: BreakpointOptions): (text: string) => number {
  const count = options.countTokens ?? estimateTokens
  if (typeof count !== 'function') throw invalidBreakpoints(`countTokens must be a function from a text to its count of tokens, received ${describe(count)}`)
  return count
}

/** A value as a problem shows it. */
function describe(value: unknown): string {
  if (typeof value === 'number') return String(value)
  return typeof value === 'string' ? JSON.stringify(value) : typeof value
}

/**
 * Refuses counts no plan can rest on: a `minTokens` (or family minimum) that is not a count, and token
 * sums that are not finite counts or that shrink as the prefix grows (a `countTokens` returning `NaN`,
 * `-1` or a text). Without this, every comparison with the minimum is false and no breakpoint is
 * planned, silently.
 */
function checkCounts(summary: PlanSummary, stableMessage: number, minimum: unknown, options: BreakpointOptions): void {
  if (!isCount(minimum)) {
    throw invalidBreakpoints(options.minTokens !== undefined
      ? `minTokens must be a count of tokens (a finite number, 0 or more), received ${describe(options.minTokens)}`
      : `the minimum for model ${JSON.stringify(summary.model)} in minimums must be a count of tokens (a finite number, 0 or more), received ${describe(minimum)}`)
  }
  const last = summary.messageCount - 1
  const sums: Array<[string, unknown]> = [['the tools', summary.toolsTokens], ['the system prompt', summary.systemTokens]]
  if (stableMessage >= 0 && stableMessage < last) sums.push([`messages 0 to ${stableMessage}`, summary.tokensThrough(stableMessage)])
  if (last >= 0) sums.push([`messages 0 to ${last}`, summary.tokensThrough(last)])
  let previous = 0
  for (const [what, tokens] of sums) {
    if (!isCount(tokens) || (what.startsWith('messages') && tokens < previous)) {
      throw invalidBreakpoints(`countTokens must return a count of tokens (a finite number, 0 or more) for every text; ${what} counted ${describe(tokens)}`)
    }
    if (what.startsWith('messages')) previous = tokens
  }
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0
}

/** The summary of a whole request, counted with `count`. */
export function summarize(request: AnthropicRequest, count: (text: string) => number): PlanSummary {
  let toolsTokens = 0
  for (const tool of request.tools ?? []) toolsTokens += count(JSON.stringify(tool))
  let systemTokens = 0
  for (const block of request.system ?? []) systemTokens += count(block.text)
  const through: number[] = []
  const blocksAfterEach: number[] = new Array(request.messages.length)
  let tokens = 0
  for (const message of request.messages) {
    for (const block of message.content) tokens += count(blockText(block))
    through.push(tokens)
  }
  let after = 0
  for (let i = request.messages.length - 1; i >= 0; i--) {
    blocksAfterEach[i] = after
    after += request.messages[i].content.length
  }
  return {
    model: request.model, toolsTokens, toolCount: request.tools?.length ?? 0, systemTokens, systemBlocks: request.system?.length ?? 0,
    messageCount: request.messages.length, tokensThrough: (i) => through[i], blocksOf: (i) => request.messages[i].content.length,
    blocksAfter: (i) => (i < 0 ? after : blocksAfterEach[i]),
  }
}

/** Plans the breakpoints of the request `summary` describes. */
export function planFrom(summary: PlanSummary, stableMessage: number, options: BreakpointOptions = {}): Breakpoint[] {
  const ttl = checkedTtl(options)
  const max = options.max ?? MAX_BREAKPOINTS
  if (!Number.isInteger(max) || max < 1 || max > MAX_BREAKPOINTS) throw invalidBreakpoints(`max must be an integer from 1 to ${MAX_BREAKPOINTS}, received ${max}`)
  const minimum = options.minTokens ?? minimumTokens(summary.model, options.minimums)
  checkCounts(summary, stableMessage, minimum, options)
  const candidates: Breakpoint[] = []
  const add = (kind: BreakpointKind, where: Breakpoint['where'], index: number, prefixTokens: number, block?: number) =>
    candidates.push({ kind, where, index, ...(block === undefined ? {} : { block }), prefixTokens, ttl: ttl[kind] })
  const before = summary.toolsTokens + summary.systemTokens
  if (summary.toolCount) add('tools', 'tools', summary.toolCount - 1, summary.toolsTokens)
  if (summary.systemBlocks) add('system', 'system', summary.systemBlocks - 1, before)
  const last = summary.messageCount - 1
  if (stableMessage >= 0 && stableMessage < last) add('stable', 'messages', stableMessage, before + summary.tokensThrough(stableMessage), summary.blocksOf(stableMessage) - 1)
  if (last >= 0) add('tail', 'messages', last, before + summary.tokensThrough(last), summary.blocksOf(last) - 1)
  const blocksSinceStable = summary.blocksAfter(stableMessage)
  const placed = candidates.filter((point) => point.prefixTokens >= minimum)
  const redundant = (point: Breakpoint) => point.kind === 'stable' && blocksSinceStable < LOOKBACK_BLOCKS
  for (const drop of [redundant, kind('tools'), kind('system'), kind('stable')]) {
    while (placed.length > max) {
      const at = placed.findIndex(drop)
      if (at < 0) break
      placed.splice(at, 1)
    }
  }
  return placed
}

/** Sets the `cache_control` of each planned point, on copies of what it marks (the originals may be shared). */
export function markBreakpoints(request: AnthropicRequest, points: readonly Breakpoint[]): void {
  for (const point of points) {
    const control: CacheControl = point.ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' }
    if (point.where === 'tools') request.tools![point.index] = { ...request.tools![point.index], cache_control: control }
    else if (point.where === 'system') request.system![point.index] = { ...request.system![point.index], cache_control: control }
    else request.messages[point.index] = markedMessage(request.messages[point.index], point)
  }
}

/** A copy of `message` with the block `point` names marked. */
export function markedMessage(message: AnthropicMessage, point: Breakpoint): AnthropicMessage {
  const control: CacheControl = point.ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' }
  // A thinking block takes no cache_control (the API refuses one), nor does an empty text (the lowering
  // sends none; kept here so no marker can land on one): a reply that ends in one is left unmarked.
  return {
    ...message,
    content: message.content.map((block, i) => (i === point.block && block.type !== 'thinking' && block.type !== 'redacted_thinking' && !(block.type === 'text' && block.text === '')
      ? { ...block, cache_control: control } : block)),
  } as AnthropicMessage
}

/**
 * The index in `sent` of the entry that ended the previous request: walking back from the end of the
 * record, past what the latest step added (user input, snapshots, prompt versions), then past the
 * model's replies and tool results recorded since. `-1` when there was no earlier request, or it ended
 * in the top-level system prompt. `indexOf` finds an entry's index in what is sent (default: a search).
 */
export function previousEnd(
  record: readonly ConversationEntry[], sent: readonly ConversationEntry[], indexOf: (item: ConversationEntry) => number = (item) => sent.indexOf(item),
): number {
  let i = record.length - 1
  while (i >= 0 && (record[i].source === 'user' || record[i].source === 'runtime-context' || record[i].source === 'system-prompt')) i--
  const repliesEnd = i
  while (i >= 0 && (record[i].source === 'assistant' || record[i].source === 'tool')) i--
  if (i === repliesEnd) return -1
  for (; i >= 0; i--) {
    const at = indexOf(record[i])
    if (at >= 0) return at
  }
  return -1
}

/** The default token estimate: a quarter of the characters, rounded up (Anthropic publishes no tokenizer). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4)
}

function checkedTtl(options: BreakpointOptions): Record<BreakpointKind, CacheTtl> {
  const ttl = {} as Record<BreakpointKind, CacheTtl>
  let previous: BreakpointKind | undefined
  for (const kind of BREAKPOINT_KINDS) {
    const value = options.ttl?.[kind] ?? '5m'
    if (value !== '5m' && value !== '1h') throw invalidBreakpoints(`ttl.${kind} must be "5m" or "1h", received ${JSON.stringify(value)}`)
    if (value === '1h' && previous !== undefined && ttl[previous] === '5m') {
      throw invalidBreakpoints(`ttl.${kind} is "1h" after ttl.${previous} "5m": a 1h breakpoint may not follow a 5m one (set the earlier kinds to "1h" too)`)
    }
    ttl[kind] = value
    previous = kind
  }
  return ttl
}

function kind(name: BreakpointKind) {
  return (point: Breakpoint) => point.kind === name
}

/** The text of a block the token estimate counts (images and documents count nothing: their size is not in their bytes). */
export function blockText(block: AnthropicBlock): string {
  // A tool added mid-conversation counts its definition (R-TOOL-13).
  if ((block as { type: string }).type === 'tool_addition') return JSON.stringify((block as unknown as AnthropicToolAdditionBlock).tool.definition)
  switch (block.type) {
    case 'text': return block.text
    case 'tool_result': return typeof block.content === 'string' ? block.content : (block.content ?? []).map(blockText).join('')
    case 'tool_use': return block.name + JSON.stringify(block.input)
    case 'thinking': return block.thinking
    case 'redacted_thinking': return block.data
    default: return ''
  }
}

/**
 * Plans from a session's running sums, so a long conversation is not walked at each step: the
 * tokens and blocks of the elements not summed yet are added, the tools and the system prompt are
 * counted again only when they serialise differently (`state.counted`).
 */
function planIncremental(input: WireInput, request: AnthropicRequest, state: PlannerState): Breakpoint[] {
  const options = input.breakpoints || {}
  const count = counterOf(options)
  if (state.counter !== count) {
    state.counter = count
    state.tokens = []
    state.blocks = []
  }
  const elements = state.elements as readonly AnthropicMessage[]
  for (let i = state.tokens.length; i < elements.length; i++) {
    const message = elements[i]
    let tokens = 0
    for (const block of message.content) tokens += count(blockText(block))
    state.tokens.push((i ? state.tokens[i - 1] : 0) + tokens)
    state.blocks.push((i ? state.blocks[i - 1] : 0) + message.content.length)
  }
  // Copies of the lists: marking the breakpoints replaces their elements afterwards.
  const toolsTokens = state.counted('plan:tools', [...request.tools ?? []], count, (tools) => {
    let tokens = 0
    for (const tool of tools) tokens += count(JSON.stringify(tool))
    return tokens
  })
  const systemTokens = state.counted('plan:system', [...request.system ?? []], count, (blocks) => {
    let tokens = 0
    for (const block of blocks) tokens += count(block.text)
    return tokens
  })
  const n = elements.length
  const totalBlocks = n ? state.blocks[n - 1] : 0
  const stable = previousEnd(input.record, state.rest, (item) => state.indexOf(item))
  return planFrom({
    model: request.model, toolsTokens, toolCount: request.tools?.length ?? 0, systemTokens, systemBlocks: request.system?.length ?? 0,
    messageCount: n, tokensThrough: (i) => state.tokens[i], blocksOf: (i) => elements[i].content.length,
    blocksAfter: (i) => totalBlocks - (i >= 0 ? state.blocks[i] : 0),
  }, stable, options)
}

/** Anthropic's `cache_control` planner, as the `anthropic` format module carries it. */
export const anthropicPlanner: BreakpointPlanner<AnthropicRequest> = Object.freeze({
  plan: planIncremental,
  mark: markBreakpoints,
  markElement: (element: object, point: Breakpoint) => markedMessage(element as AnthropicMessage, point),
})
