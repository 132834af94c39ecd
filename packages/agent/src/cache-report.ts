/**
 * The per-request reuse report (R-CACHE-2): each step's request measured as its cache stream against
 * the same agent's previous request of the same format, the provider's caching rules applied to the
 * shared prefix, and, when the prefix broke, the part that changed first, its owner, layer and cause.
 * One `ReuseTracker` per agent; pure apart from the tokenizer it loads.
 * @module
 */
import { scopeLabel, type ScopeKey } from 'dsh-scope'
import { assemblyNotes, type PromptAssembly, type RenderedPrompt } from 'dsh-system-prompt'
import {
  cacheProviderFor, commonPrefix, providerFamily, tokenCounter, wireFormat, type Breakpoint, type CacheBreak, type CacheEntry, type CachePoint, type CacheProvider,
  type CacheReport, type SessionBuild, type StreamPart, type TokenCounter, type Usage, type WireFormat, joinMiss, type ProviderMiss,
} from 'dsh-wire'
import { countIsEstimate, mismatchReason, TTL_MS } from 'dsh-wire/internal'
import type { Context } from 'cordis'
import { firstSectionBreak, promptParts } from './ledger-parts.js'

export { cacheProviderFor }

/**
 * The running sums of one format's element parts, owned by the tracker: kept while the session says it
 * extended its previous build (`build.kept`), else made again from the texts. Nothing here depends on
 * the session handing back the same array.
 */
interface Elements {
  readonly tokens: number[]
  /** Bytes, tokens and blocks of elements `0..i`. */
  readonly bytes: number[]
  readonly through: number[]
  readonly blocks: number[]
  /** How many of elements `0..i` were counted as an estimate (an unbroken run cut: `countIsEstimate`). */
  readonly cuts: number[]
}

/** The registration behind each visible tool, by name. */
type ToolOrigins = ReadonlyMap<string, { readonly owner: string; readonly scope?: ScopeKey }>

const NO_ORIGINS: ToolOrigins = new Map()

/** What one request left for the next one of its format to compare with. */
interface Previous {
  readonly head: readonly StreamPart[]
  readonly headTokens: readonly number[]
  /** Whether each head part's count is an estimate. */
  readonly headCuts: readonly boolean[]
  /** The element parts as that build gave them (only the first `count` are read). */
  readonly parts: readonly StreamPart[]
  readonly elements: Elements
  /** How many of `elements` this request sent. */
  readonly count: number
  readonly requestBytes: number
  readonly requestTokens: number
  readonly rendered: RenderedPrompt
  readonly assembly: PromptAssembly
  readonly entries: readonly CacheEntry[]
  readonly at: number
  /** The registration behind each tool, as it stood (a removed tool's row is gone by the next request). */
  readonly tools: ToolOrigins
  /** The engine's prompt tokens, for a family that renders them (`promptTokens`). */
  readonly prompt?: readonly number[]
}

/** What a step hands the tracker. */
export interface ReuseInput<F extends WireFormat> {
  format: F
  provider: CacheProvider
  /** The session's build of the request. */
  build: SessionBuild<F>
  rendered: RenderedPrompt
  assembly: PromptAssembly
  /** The time of the request, in milliseconds since the epoch. */
  now: number
  /** The registration behind each visible tool when the request was built (default: as it stands now). */
  tools?: ToolOrigins | undefined
}

/** Measures each request of one agent against its previous one. */
export class ReuseTracker {
  private turn = 0
  private readonly previous = new Map<WireFormat, Previous>()
  private last?: { report: CacheReport; at: number; previousAt?: number }

  /**
   * `ctx`: the agent's context while it lives (for layer names); `toolOrigins`: the registration behind
   * each visible tool (the `tools` service's view knows it, one immutable map per view; the prompt's
   * tool check knows only the provider).
   */
  constructor(
    private readonly ctx: () => Context | undefined,
    private readonly toolOrigins: () => ToolOrigins | undefined = () => undefined,
  ) {}

  /** The token counter of `provider` (its tokenizer loads on its first count). */
  counter(provider: CacheProvider): Promise<TokenCounter> {
    return tokenCounter(provider)
  }

  /**
   * The report of one request, counted with `counter`; remembers the request for the next one. When
   * the request extends the previous one (same head, the previous elements kept in place), only the new
   * elements are counted: the cost does not grow with the conversation.
   */
  measure<F extends WireFormat>(input: ReuseInput<F>, counter: TokenCounter): CacheReport {
    const { build } = input
    const tools = ('tools' in input ? input.tools : this.toolOrigins()) ?? NO_ORIGINS
    const previous = this.previous.get(input.format)
    const head = build.head
    const same = (i: number) => previous?.head[i]?.text === head[i].text
    const headTokens = head.map((part, i) => (same(i) ? previous!.headTokens[i] : counter.count(part.text)))
    const cut = estimateOf(counter)
    const headCuts = head.map((part, i) => (same(i) ? previous!.headCuts[i] : cut(part.text)))
    // `kept`: the session's word that this build kept the previous build's elements unchanged and in place.
    const elements = previous && build.kept >= 0 ? carried(previous.elements, build.kept) : recount(build.elements, previous)
    extend(elements, build.elements, build.elementCount, counter, cut)
    const n = build.elementCount
    // The label says so when any count of this request is an estimate (carried counts included).
    const estimate = headCuts.includes(true) || (n > 0 && elements.cuts[n - 1] > 0)
    const headBytes = sum(head.map((part) => part.bytes))
    const headTokenTotal = sum(headTokens)
    const requestBytes = headBytes + (n ? elements.bytes[n - 1] : 0)
    const family = providerFamily(input.provider)
    // A self-hosted engine's family renders the prompt the engine tokenizes: its tokens are the request.
    const prompt = family.promptTokens?.(input.format, build.request)
    let requestTokens = headTokenTotal + (n ? elements.through[n - 1] : 0)
    let shared: { bytes: number; part: number; chars: number }
    let reusableTokens: number
    let parts: (() => StreamPart[]) | undefined
    const extendsPrevious = previous !== undefined && build.kept >= 0 && build.kept >= previous.count &&
      previous.head.length === head.length && previous.head.every((part, i) => part.text === head[i].text)
    if (!previous) {
      shared = { bytes: 0, part: 0, chars: 0 }
      reusableTokens = 0
    } else if (extendsPrevious) {
      shared = { bytes: previous.requestBytes, part: -1, chars: 0 }
      reusableTokens = previous.requestTokens
    } else {
      const before = [...previous.head, ...previous.parts.slice(0, previous.count)]
      const now = [...head, ...build.elements.slice(0, n)]
      parts = () => now
      shared = commonPrefix(before, now)
      const tokensNow = [...headTokens, ...elements.tokens.slice(0, n)]
      reusableTokens = sharedTokens(now, tokensNow, shared, before.length, counter)
    }
    if (prompt !== undefined) {
      requestTokens = prompt.length
      reusableTokens = previous?.prompt === undefined ? 0 : commonTokens(previous.prompt, prompt)
    }
    const answer = family.predict({
      model: build.model, requestTokens, reusableTokens, reusableBytes: shared.bytes, entries: previous?.entries ?? [],
      points: cachePoints(build.breakpoints, head, headTokens, elements), headBlocks: sum(head.map((part) => part.blocks)), now: input.now,
    })
    const entries = answer.entries ?? []
    const predictedCachedTokens = Math.min(answer.cachedTokens, reusableTokens)
    const limit = answer.limit
    this.turn++
    const breaks = previous && shared.bytes < previous.requestBytes
      ? [this.explain(previous, input, tools, [...previous.head, ...previous.parts.slice(0, previous.count)], parts?.() ?? [...head, ...build.elements.slice(0, n)], shared.part)]
      : []
    const report: CacheReport = {
      format: input.format, provider: input.provider, turn: this.turn, requestBytes, reusableBytes: shared.bytes,
      requestTokens, reusableTokens, predictedCachedTokens, tokenizer: estimate ? `${counter.name}, estimate` : counter.name, breaks,
      ...(previous && predictedCachedTokens < reusableTokens && limit !== undefined ? { limit } : {}),
    }
    this.last = { report, at: input.now, ...(previous ? { previousAt: previous.at } : {}) }
    this.previous.set(input.format, {
      head, headTokens, headCuts, parts: build.elements, elements, count: n, requestBytes, requestTokens, rendered: input.rendered, assembly: input.assembly, entries, at: input.now, tools,
      ...(prompt === undefined ? {} : { prompt }),
    })
    return report
  }

  /**
   * The report of a side request (a fork's, `side`), measured as `measure` would against the previous
   * request of its format, which is what it shares; the tracker is left as it was, so the agent's next
   * request is measured against its own previous one and a fork counts in none of its figures.
   */
  measureSide<F extends WireFormat>(input: ReuseInput<F>, counter: TokenCounter, side: { kind: string }): CacheReport {
    const kept = this.previous.get(input.format)
    const { turn, last } = this
    // `measure` trims and extends the previous request's sums in place: the fork gets copies.
    if (kept) this.previous.set(input.format, { ...kept, elements: copyOf(kept.elements) })
    try {
      return { ...this.measure(input, counter), turn, side: { kind: side.kind } }
    } finally {
      this.turn = turn
      if (last) this.last = last
      else delete this.last
      if (kept) this.previous.set(input.format, kept)
      else this.previous.delete(input.format)
    }
  }

  /**
   * Starts this tracker (a child agent's, before its first request) from `parent`'s latest request of
   * each format, so the child's first request is measured against what it shares with its parent
   * (issue 21, item 2); later requests are measured against the child's own. `parent` is unchanged.
   */
  inherit(parent: ReuseTracker): void {
    for (const [format, previous] of parent.previous) this.previous.set(format, { ...previous, elements: copyOf(previous.elements) })
  }

  /**
   * Where the sections of `rendered` first differ from those of the previous request of `format`
   * (the section, its owner and the cause), or `undefined` when they read the same or there is none.
   */
  sectionChange<F extends WireFormat>(format: F, rendered: RenderedPrompt, assembly: PromptAssembly): CacheBreak | undefined {
    const previous = this.previous.get(format)
    if (!previous || previous.rendered.system === rendered.system) return undefined
    if (rendered.system === '') return cleared(null)
    return this.systemBreak(previous, { format, rendered, assembly } as ReuseInput<F>, null)
  }

  /**
   * Sets the reported cached tokens of the latest request's report from the usage recorded with its
   * reply, and the likely reason when they differ from the prediction.
   */
  reconcile(usage: Usage, now: number): void {
    if (!this.last) return
    const { report, previousAt } = this.last
    report.reportedCachedTokens = usage.cachedReadTokens
    const reason = mismatchReason(report.provider, usage.cachedReadTokens, {
      requestTokens: report.requestTokens, predictedCachedTokens: report.predictedCachedTokens, sincePrevious: previousAt === undefined ? undefined : now - previousAt,
    })
    if (reason === undefined) delete report.mismatch
    else report.mismatch = reason
  }

  /**
   * Sets the provider's diagnosis of the latest request beside its report's break (`joinMiss`): the
   * gap since the request before it, against the 5-minute lifetime the providers keep by default.
   */
  joinProviderMiss(miss: ProviderMiss): void {
    if (!this.last) return
    const { report, at, previousAt } = this.last
    report.providerMiss = joinMiss(miss, report, { lifetime: TTL_MS['5m'], ...(previousAt === undefined ? {} : { sincePrevious: at - previousAt }) })
  }

  /** The first break of `stream` against `previous`: the part, its owner, layer and cause. */
  private explain<F extends WireFormat>(previous: Previous, input: ReuseInput<F>, tools: ToolOrigins, beforeParts: readonly StreamPart[], afterParts: readonly StreamPart[], at: number): CacheBreak {
    const before = beforeParts[at]
    const after = afterParts[at]
    const part = after ?? before
    const kind = changedKind(input.format, before, after)
    if (kind === 'model') {
      return { message: null, section: null, kind: 'model', owner: null, layer: null, cause: `model changed: ${JSON.stringify(modelOf(before))} → ${JSON.stringify(modelOf(after))}` }
    }
    if (kind === 'system') {
      if (input.rendered.system === '' && previous.rendered.system !== '') return cleared(null)
      return this.systemBreak(previous, input, null)
    }
    if (kind === 'tool') return this.toolBreak(previous, input, tools, beforeParts, before, after)
    // Messages are only appended: an earlier one reads differently when a clear hides the versions
    // appended before it, or (defensively) when the record was not what this agent sent.
    const index = part.index
    if (input.rendered.system === '' && previous.rendered.system !== '') return cleared(index)
    return {
      message: index, section: null, kind: 'message', owner: null, layer: null,
      cause: after === undefined ? `message changed: message ${index} (${describeMessage(before)}) is no longer sent`
        : `message changed: message ${index} (${describeMessage(after)}) reads differently than in the previous request`,
    }
  }

  private toolBreak<F extends WireFormat>(
    previous: Previous, input: ReuseInput<F>, tools: ToolOrigins, beforeParts: readonly StreamPart[], before: StreamPart | undefined, after: StreamPart | undefined,
  ): CacheBreak {
    const namesBefore = beforeParts.filter((p) => p.kind === 'tool').map((p) => p.name!)
    const namesAfter = new Set(toolNames(input))
    const origin = (name: string, assembly: PromptAssembly) => {
      const notes = assemblyNotes(assembly)
      const change = notes?.provenance.tools.get(name)
      if (change) return { owner: change.by, layer: this.layerOf(change.entry.scope as ScopeKey | undefined) }
      const registered = (assembly === input.assembly ? tools : previous.tools).get(name)
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
    const layerOf = (scope: ScopeKey | undefined) => this.layerOf(scope)
    const base = { message: this.openingIndex(input.format, message) }
    // The rule the ledger's history uses too: the break is found from the versions' parts alone.
    const change = firstSectionBreak(promptParts(previous.rendered, previous.assembly, layerOf), promptParts(input.rendered, input.assembly, layerOf))
    if (change) return { ...base, ...change }
    return { ...base, section: null, kind: 'message', owner: null, layer: null, cause: 'system prompt replaced: the opening instructions read differently' }
  }

  /** The message index of the opening system prompt, where the format sends it as an element. */
  private openingIndex(format: WireFormat, message: number | null): number | null {
    return wireFormat(format).openingIsElement ? 0 : message
  }

  /** The layer name of `scope`: `global`, its label (`agent:main`), or `scope` when the agent's context is gone. */
  layerOf(scope: ScopeKey | undefined): string {
    if (scope === undefined) return 'global'
    const ctx = this.ctx()
    return (ctx && scopeLabel(ctx, scope)) ?? 'scope'
  }
}

/**
 * What changed where two streams first differ: the part's kind, or, when the two parts are of different
 * kinds (a region grew, shrank, came or went), the kind whose region comes first in the format's
 * hashing order (the other one only moved: with Anthropic a tool added before the system prompt, with
 * OpenAI a system prompt gone before the tools).
 */
function changedKind(format: WireFormat, before: StreamPart | undefined, after: StreamPart | undefined): StreamPart['kind'] {
  if (!before || !after || before.kind === after.kind) return (after ?? before)!.kind
  const order = wireFormat(format).order
  const rank = (kind: StreamPart['kind']) => (kind === 'model' ? -1 : order.indexOf(kind === 'tool' ? 'tools' : kind === 'system' ? 'system' : 'messages'))
  return rank(before.kind) <= rank(after.kind) ? before.kind : after.kind
}

/** The break of a request whose system prompt was cleared: every earlier version is no longer sent. */
function cleared(message: number | null): CacheBreak {
  return { message, section: null, kind: 'message', owner: null, layer: null, cause: 'system prompt replaced: the instructions were cleared, so earlier versions are no longer sent' }
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

/** The previous sums, valid for the first `kept` elements (the session kept them unchanged and in place). */
function carried(elements: Elements, kept: number): Elements {
  for (const sums of [elements.tokens, elements.bytes, elements.through, elements.blocks, elements.cuts]) if (sums.length > kept) sums.length = kept
  return elements
}

function copyOf(elements: Elements): Elements {
  return { tokens: [...elements.tokens], bytes: [...elements.bytes], through: [...elements.through], blocks: [...elements.blocks], cuts: [...elements.cuts] }
}

/** The element sums of `parts` (a new element list), reusing the previous counts where an element reads the same. */
function recount(parts: readonly StreamPart[], previous: Previous | undefined): Elements {
  const elements: Elements = { tokens: [], bytes: [], through: [], blocks: [], cuts: [] }
  const before = previous?.parts
  for (let i = 0; i < parts.length && before && i < previous!.elements.tokens.length && before[i].text === parts[i].text; i++) {
    const cuts = previous!.elements.cuts
    push(elements, parts, i, previous!.elements.tokens[i], cuts[i] > (i ? cuts[i - 1] : 0))
  }
  return elements
}

/** Counts the elements up to `count` that have no sums yet. */
function extend(elements: Elements, parts: readonly StreamPart[], count: number, counter: TokenCounter, cut: (text: string) => boolean): void {
  for (let i = elements.tokens.length; i < count; i++) push(elements, parts, i, counter.count(parts[i].text), cut(parts[i].text))
}

/**
 * Whether a text's count by `counter` is an estimate: the built-in encoders count in bounded pieces and
 * cut an unbroken run longer than a piece (`countIsEstimate`); a counter whose name already says
 * `estimate` (the characters / 4 one) needs no second word.
 */
function estimateOf(counter: TokenCounter): (text: string) => boolean {
  return counter.name.startsWith('estimate') ? () => false : (text) => countIsEstimate(text)
}

function push(elements: Elements, parts: readonly StreamPart[], i: number, tokens: number, cut: boolean): void {
  const part = parts[i]
  elements.cuts.push((i ? elements.cuts[i - 1] : 0) + (cut ? 1 : 0))
  elements.tokens.push(tokens)
  elements.bytes.push((i ? elements.bytes[i - 1] : 0) + part.bytes)
  elements.through.push((i ? elements.through[i - 1] : 0) + tokens)
  elements.blocks.push((i ? elements.blocks[i - 1] : 0) + part.blocks)
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
function cachePoints(breakpoints: readonly Breakpoint[], head: readonly StreamPart[], headTokens: readonly number[], elements: Elements): CachePoint[] {
  const points: CachePoint[] = []
  // The head is the model, the tools, then the system prompt (Anthropic's order).
  const upTo = (count: number) => {
    let bytes = 0
    let tokens = 0
    let blocks = 0
    for (let i = 0; i < count; i++) { bytes += head[i].bytes; tokens += headTokens[i]; blocks += head[i].blocks }
    return { bytes, tokens, blocks }
  }
  const toolsEnd = upTo(head.filter((part) => part.kind !== 'system').length)
  const all = upTo(head.length)
  for (const point of breakpoints) {
    if (point.where === 'tools') points.push({ bytes: toolsEnd.bytes, tokens: toolsEnd.tokens, block: toolsEnd.blocks - 1, ttl: point.ttl })
    else if (point.where === 'system') points.push({ bytes: all.bytes, tokens: all.tokens, block: all.blocks - 1, ttl: point.ttl })
    else {
      const i = point.index
      points.push({ bytes: all.bytes + elements.bytes[i], tokens: all.tokens + elements.through[i], block: all.blocks + elements.blocks[i] - 1, ttl: point.ttl })
    }
  }
  return points
}

/** The length of the longest common prefix of two token sequences. */
function commonTokens(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length)
  let i = 0
  while (i < n && a[i] === b[i]) i++
  return i
}

function sum(values: readonly number[]): number {
  let total = 0
  for (const value of values) total += value
  return total
}
