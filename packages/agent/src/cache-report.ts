/**
 * The per-request reuse report (SPEC §13): each step's request measured as its cache stream against
 * the same agent's previous request of the same format, the provider's caching rules applied to the
 * shared prefix, and, when the prefix broke, the part that changed first, its owner, layer and cause.
 * One `ReuseTracker` per agent; pure apart from the tokenizer it loads.
 * @module
 */
import { scopeLabel, type ScopeKey } from 'dsh-scope'
import { assemblyNotes, type PromptAssembly, type RenderedPrompt } from 'dsh-system-prompt'
import { templateVariables } from 'dsh-system-prompt/internal'
import {
  anthropicCachedTokens, cacheStream, commonPrefix, deepseekCachedTokens, geminiCachedTokens, minimumTokens, openaiCachedTokens, tokenCounter,
  TTL_MS, type AnthropicRequest, type CacheBreak, type CacheEntry, type CachePoint, type CacheProvider, type CacheReport, type CacheStream,
  type RequestBodies, type StreamPart, type TokenCounter, type Usage, type WireFormat,
} from 'dsh-wire'
import type { Context } from 'cordis'

/** The provider whose caching rules a format follows unless told otherwise. */
export const DEFAULT_CACHE_PROVIDER: Readonly<Record<WireFormat, CacheProvider>> = Object.freeze({
  'openai-chat': 'openai', 'openai-responses': 'openai', anthropic: 'anthropic', gemini: 'gemini',
})

/** Every provider whose caching rules the report models. */
export const CACHE_PROVIDERS: readonly CacheProvider[] = Object.freeze(['openai', 'anthropic', 'deepseek', 'gemini'])

/** The providers whose rules fit each format (DeepSeek speaks the chat-completions shape). */
const FITS: Readonly<Record<WireFormat, readonly CacheProvider[]>> = {
  'openai-chat': ['openai', 'deepseek'], 'openai-responses': ['openai'], anthropic: ['anthropic'], gemini: ['gemini'],
}

/** The caching rules for a request of `format`: `wanted` when given, else the agent's provider when it fits, else the format's own. */
export function cacheProviderFor(format: WireFormat, wanted: CacheProvider | undefined, agentProvider: string | undefined): CacheProvider {
  if (wanted !== undefined) return wanted
  const named = agentProvider?.toLowerCase() as CacheProvider | undefined
  return named !== undefined && FITS[format].includes(named) ? named : DEFAULT_CACHE_PROVIDER[format]
}

/** What one request left for the next one of its format to compare with. */
interface Previous {
  readonly stream: CacheStream
  readonly tokens: readonly number[]
  readonly rendered: RenderedPrompt
  readonly assembly: PromptAssembly
  readonly entries: readonly CacheEntry[]
  readonly at: number
}

/** What a step hands the tracker. */
export interface ReuseInput<F extends WireFormat> {
  format: F
  provider: CacheProvider
  request: RequestBodies[F]
  rendered: RenderedPrompt
  assembly: PromptAssembly
  /** The time of the request, in milliseconds since the epoch. */
  now: number
}

/** Measures each request of one agent against its previous one. */
export class ReuseTracker {
  private turn = 0
  private readonly previous = new Map<WireFormat, Previous>()
  private last?: { report: CacheReport; at: number; previousAt?: number }

  /**
   * `ctx`: the agent's context while it lives (for layer names); `toolOrigin`: the registration behind a
   * visible tool (the `tools` service knows it; the prompt's tool check knows only the provider).
   */
  constructor(
    private readonly ctx: () => Context | undefined,
    private readonly toolOrigin: (name: string) => { owner: string; scope?: ScopeKey } | undefined = () => undefined,
  ) {}

  /** The token counter of `provider` (loaded once): a step loads it before it records anything. */
  counter(provider: CacheProvider): Promise<TokenCounter> {
    return tokenCounter(provider)
  }

  /** The report of one request, counted with `counter`; remembers the request for the next one. */
  measure<F extends WireFormat>(input: ReuseInput<F>, counter: TokenCounter): CacheReport {
    const stream = cacheStream(input.format, input.request)
    const previous = this.previous.get(input.format)
    const tokens = countParts(stream.parts, previous, counter)
    const requestTokens = sum(tokens)
    const shared = previous ? commonPrefix(previous.stream.parts, stream.parts) : { bytes: 0, part: 0, chars: 0 }
    const reusableTokens = previous ? sharedTokens(stream.parts, tokens, shared, previous.stream.parts.length, counter) : 0
    let entries: readonly CacheEntry[] = []
    let predictedCachedTokens: number
    switch (input.provider) {
      case 'openai':
        predictedCachedTokens = openaiCachedTokens(requestTokens, reusableTokens)
        break
      case 'deepseek':
        predictedCachedTokens = deepseekCachedTokens(reusableTokens)
        break
      case 'gemini':
        predictedCachedTokens = geminiCachedTokens(input.request.model, requestTokens, reusableTokens)
        break
      case 'anthropic': {
        const request = input.request as AnthropicRequest
        const prediction = anthropicCachedTokens({
          entries: previous?.entries ?? [], points: cachePoints(request, stream, tokens), reusableBytes: shared.bytes,
          minimum: minimumTokens(request.model), now: input.now,
        })
        entries = prediction.entries
        predictedCachedTokens = Math.min(prediction.cachedTokens, reusableTokens)
        break
      }
    }
    this.turn++
    const breaks = previous && shared.bytes < previous.stream.bytes ? [this.explain(previous, input, stream, shared.part)] : []
    const report: CacheReport = {
      format: input.format, provider: input.provider, turn: this.turn, requestBytes: stream.bytes, reusableBytes: shared.bytes,
      requestTokens, reusableTokens, predictedCachedTokens, tokenizer: counter.name, breaks,
    }
    this.last = { report, at: input.now, ...(previous ? { previousAt: previous.at } : {}) }
    this.previous.set(input.format, { stream, tokens, rendered: input.rendered, assembly: input.assembly, entries, at: input.now })
    return report
  }

  /**
   * Sets the reported cached tokens of the latest request's report from the usage recorded with its
   * reply, and the likely reason when they differ from the prediction.
   */
  reconcile(usage: Usage, now: number): void {
    if (!this.last) return
    const { report, previousAt } = this.last
    report.reportedCachedTokens = usage.cachedReadTokens
    const reason = mismatchReason(report, usage.cachedReadTokens, previousAt === undefined ? undefined : now - previousAt)
    if (reason === undefined) delete report.mismatch
    else report.mismatch = reason
  }

  /** The first break of `stream` against `previous`: the part, its owner, layer and cause. */
  private explain<F extends WireFormat>(previous: Previous, input: ReuseInput<F>, stream: CacheStream, at: number): CacheBreak {
    const before = previous.stream.parts[at]
    const after = stream.parts[at]
    const part = after ?? before
    const kind = part.kind
    if (kind === 'model') {
      return { message: null, section: null, kind: 'model', owner: null, layer: null, cause: `model changed: ${JSON.stringify(modelOf(before))} → ${JSON.stringify(modelOf(after))}` }
    }
    if (kind === 'tool' || before?.kind === 'tool') return this.toolBreak(previous, input, before, after)
    if (kind === 'system') return this.systemBreak(previous, input, null)
    // openai-chat under `replace`: the opening system message is a `system` part, handled above; a
    // message break is an earlier message that no longer reads the same.
    const index = part.index
    const prior = previous.stream.parts.filter((p) => p.kind === 'message')
    const source = describeMessage(after ?? before)
    const cleared = input.rendered.system === '' && previous.rendered.system !== ''
    if (cleared) return { message: index, section: null, kind: 'message', owner: null, layer: null, cause: 'system prompt replaced: the instructions were cleared, so earlier versions are no longer sent' }
    return {
      message: index, section: null, kind: 'message', owner: null, layer: null,
      cause: after === undefined ? `message changed: message ${index} (${source}) is no longer sent` : `message changed: message ${index} (${source}) reads differently than it did in request ${prior.length ? this.turn - 1 : 0}`,
    }
  }

  private toolBreak<F extends WireFormat>(previous: Previous, input: ReuseInput<F>, before: StreamPart | undefined, after: StreamPart | undefined): CacheBreak {
    const namesBefore = previous.stream.parts.filter((p) => p.kind === 'tool').map((p) => p.name!)
    const namesAfter = new Set(input.request && (after || before) ? toolNames(input) : [])
    const origin = (name: string, assembly: PromptAssembly) => {
      const notes = assemblyNotes(assembly)
      const change = notes?.provenance.tools.get(name)
      if (change) return { owner: change.by, layer: this.layerOf(change.entry.scope as ScopeKey | undefined) }
      const registered = this.toolOrigin(name)
      if (registered) return { owner: registered.owner, layer: this.layerOf(registered.scope) }
      return { owner: notes?.tools.owners.get(name) ?? null, layer: this.layerOf(notes?.tools.layers.get(name)) }
    }
    const base = { message: null, kind: 'tool' as const }
    if (after?.kind === 'tool' && !namesBefore.includes(after.name!)) {
      return { ...base, section: after.name!, ...origin(after.name!, input.assembly), cause: `tool added: "${after.name}"` }
    }
    if (before?.kind === 'tool' && !namesAfter.has(before.name!)) {
      return { ...base, section: before.name!, ...origin(before.name!, previous.assembly), cause: `tool removed: "${before.name}"` }
    }
    if (after?.kind === 'tool' && before?.kind === 'tool' && after.name === before.name) {
      return { ...base, section: after.name!, ...origin(after.name!, input.assembly), cause: `tool schema changed: "${after.name}"` }
    }
    const name = after?.name ?? before!.name!
    return { ...base, section: name, ...origin(name, input.assembly), cause: `tool order changed: "${name}" moved` }
  }

  private systemBreak<F extends WireFormat>(previous: Previous, input: ReuseInput<F>, message: number | null): CacheBreak {
    const a = previous.rendered.sections
    const b = input.rendered.sections
    const namesA = new Set(a.map((s) => s.name))
    const namesB = new Set(b.map((s) => s.name))
    const notes = assemblyNotes(input.assembly)
    const origin = (section: { name: string; owner?: string; scope?: ScopeKey }, notesOf = notes) => {
      const change = notesOf?.provenance.sections.get(section.name)
      return { owner: change ? change.by : section.owner ?? null, layer: this.layerOf(section.scope) }
    }
    const base = { message: this.openingIndex(input.format, message), kind: 'section' as const }
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const x = a[i]
      const y = b[i]
      if (x && y && x.name === y.name && x.text === y.text) continue
      if (y && !namesA.has(y.name)) return { ...base, section: y.name, ...origin(y.entry), cause: `section added: "${y.name}"` }
      if (x && !namesB.has(x.name)) return { ...base, section: x.name, ...origin(x.entry, assemblyNotes(previous.assembly)), cause: `section removed: "${x.name}"` }
      if (x && y && x.name === y.name) {
        const changed = changedVariable(x.entry.text, y.entry.text, previous.assembly.variables, input.assembly.variables)
        if (changed !== undefined) return { ...base, section: y.name, ...origin(y.entry), cause: `variable value changed ({{${changed}}}) in section "${y.name}"` }
        return { ...base, section: y.name, ...origin(y.entry), cause: `section text changed: "${y.name}"` }
      }
      const name = (y ?? x)!.name
      return { ...base, section: name, ...origin((y ?? x)!.entry), cause: `order changed: "${name}" moved` }
    }
    return { ...base, section: null, kind: 'message', owner: null, layer: null, cause: 'system prompt replaced: the opening instructions read differently' }
  }

  /** The message index of the opening system prompt, where the format sends it as a message. */
  private openingIndex(format: WireFormat, message: number | null): number | null {
    return format === 'openai-chat' ? 0 : message
  }

  private layerOf(scope: ScopeKey | undefined): string {
    if (scope === undefined) return 'global'
    const ctx = this.ctx()
    return (ctx && scopeLabel(ctx, scope)) ?? 'scope'
  }
}

function toolNames<F extends WireFormat>(input: ReuseInput<F>): string[] {
  return input.assembly.tools.map((tool) => tool.name)
}

function modelOf(part: StreamPart | undefined): string {
  if (!part) return ''
  return (JSON.parse(part.text) as { model: string }).model
}

function describeMessage(part: StreamPart | undefined): string {
  if (!part) return 'absent'
  const value = JSON.parse(part.text) as { role?: string; type?: string }
  return value.role ?? value.type ?? 'message'
}

/** The first variable a section's template uses whose value changed, when the template itself did not. */
function changedVariable(
  before: string, after: string, varsBefore: Record<string, string | undefined>, varsAfter: Record<string, string | undefined>,
): string | undefined {
  if (before !== after) return undefined
  for (const name of templateVariables(after)) if (varsBefore[name] !== varsAfter[name]) return name
  return undefined
}

/** Token counts of each part, reusing the previous request's count where a part reads the same. */
function countParts(parts: readonly StreamPart[], previous: Previous | undefined, counter: TokenCounter): number[] {
  const before = previous?.stream.parts
  return parts.map((part, i) => (before?.[i]?.text === part.text ? previous!.tokens[i] : counter.count(part.text)))
}

/** Tokens of the shared prefix: the whole parts that agree, then the shared start of the first that differs. */
function sharedTokens(
  parts: readonly StreamPart[], tokens: readonly number[], shared: { part: number; chars: number }, previousParts: number, counter: TokenCounter,
): number {
  const whole = shared.part < 0 ? previousParts : shared.part
  let total = 0
  for (let i = 0; i < whole && i < parts.length; i++) total += tokens[i]
  if (shared.part >= 0 && shared.part < parts.length && shared.chars > 0) {
    // Only whole tokens of the shared start count: its last token may continue into the part's rest.
    total += Math.max(0, counter.count(parts[shared.part].text.slice(0, shared.chars)) - 1)
  }
  return total
}

/** The points of an Anthropic request's stream where it marks a breakpoint, with the prefix up to each. */
function cachePoints(request: AnthropicRequest, stream: CacheStream, tokens: readonly number[]): CachePoint[] {
  const points: CachePoint[] = []
  let bytes = 0
  let tokenCount = 0
  let block = -1
  stream.parts.forEach((part, i) => {
    bytes += part.bytes
    tokenCount += tokens[i]
    block += part.blocks
    const marked = part.kind === 'tool' ? request.tools?.[part.index]?.cache_control
      : part.kind === 'system' ? request.system?.[request.system.length - 1]?.cache_control
        : part.kind === 'message' ? lastMarked(request.messages[part.index]?.content) : undefined
    if (marked) points.push({ bytes, tokens: tokenCount, block, ttl: marked.ttl ?? '5m' })
  })
  return points
}

function lastMarked(blocks: AnthropicRequest['messages'][number]['content'] | undefined) {
  return blocks?.[blocks.length - 1]?.cache_control
}

function sum(values: readonly number[]): number {
  let total = 0
  for (const value of values) total += value
  return total
}

/** Why the reported cached tokens differ from the prediction, or `undefined` when they agree. */
function mismatchReason(report: CacheReport, reported: number | null, sincePrevious: number | undefined): string | undefined {
  if (reported === null) return 'not reported: the usage carries no cached-token figure'
  if (reported === report.predictedCachedTokens) return undefined
  const gap = Math.abs(reported - report.predictedCachedTokens)
  switch (report.provider) {
    case 'openai':
      if (report.requestTokens < 1024) return 'below the minimum: OpenAI caches prompts of 1,024 tokens or more'
      if (gap < 128) return 'unit granularity: OpenAI serves 128-token increments, and counts differ by a few tokens'
      break
    case 'deepseek':
      if (gap < 64) return 'unit granularity: DeepSeek serves whole 64-token units'
      break
    case 'anthropic':
      if (reported < report.predictedCachedTokens && sincePrevious !== undefined && sincePrevious > TTL_MS['5m']) return 'TTL elapsed: the entry expired between the requests'
      if (gap <= Math.max(64, report.predictedCachedTokens * 0.15)) return 'token counts are estimates: Anthropic publishes no tokenizer'
      break
    case 'gemini':
      return reported < report.predictedCachedTokens ? 'implicit caching is not guaranteed: Gemini served less than the shared prefix' : 'token counts are estimates: no Gemini tokenizer is available'
  }
  return reported < report.predictedCachedTokens
    ? 'cache miss: the entry was evicted, or the request reached a machine without it (keep a stable prompt_cache_key or conversation id)'
    : 'more than predicted: an earlier request outside this agent (a retry, another conversation) cached the prefix'
}
