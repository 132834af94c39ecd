/**
 * Compaction as epochs (R-EPOCH): the text a summarizer gets (`agent.compactionSource()`), the plan
 * that prices both re-anchors before anything is paid (`agent.planCompaction()`), and its `apply()`,
 * which opens the new epoch. dsh never calls a model: the harness gets the summary (from a `compact`
 * fork, say) and hands it over. The record is built by `epoch.ts`, priced by `reanchor-price.ts`.
 * @module
 */
import { renderAssembly, type CompactionSurvival, type PromptAssembly, type RenderedPrompt } from 'dsh-system-prompt'
import { cachePricesOf, type WireSession, type CacheProvider, type ConversationEntry, type TokenCounter, type WireFormat, type WireInput } from 'dsh-wire'
import type { ReuseTracker } from './cache-report.js'
import {
  epochBaseline, keptTail, REANCHOR_KINDS, sha256, type CompactionKeep, type Epoch, type HiddenSection, type ReanchorKind, type ReanchorPolicy, type ReanchorPrice,
} from './epoch.js'
import type { EpochLog } from './epoch-log.js'
import { compactionStale, invalidCompaction, nothingToCompact } from './errors.js'
import { DEFAULT_REANCHOR_HORIZON, pickReanchor, reanchorPrice } from './reanchor-price.js'
import type { StepOptions } from './step-types.js'

/** Options of `agent.compactionSource()`. */
export interface CompactionSourceOptions extends Pick<StepOptions<WireFormat>, 'signal' | 'timeout'> {
  /** What the new epoch keeps word for word (default `{ turns: 0 }`: everything is summarised). */
  keep?: CompactionKeep
}

/** Options of `agent.planCompaction()` and `agent.compact()`. */
export interface CompactionOptions extends CompactionSourceOptions {
  /** The summary of what the kept tail does not keep (the harness's summarizer wrote it). */
  summary: string
  /** The format whose caching rules price the re-anchors (default: the latest step's, else `openai-chat`). */
  format?: WireFormat
  /** How many later requests of the epoch `cheapest` weighs (default 10). */
  horizon?: number
}

/** What to hand a summarizer: the text to summarise, and an instruction for a `compact` fork. */
export interface CompactionSource {
  /** The record before the kept tail as plain text (no system-prompt version, no snapshot), then each `summary` section's text. */
  text: string
  /** A trailing instruction for `agent.fork({ kind: 'compact', instruction })`: what to summarise and what stays. */
  instruction: string
  /** How many entries of the record the summary replaces, and how many turns the epoch holds. */
  summarised: number
  turns: number
  /** The sections of the current assembly by survival. */
  sections: Record<CompactionSurvival, string[]>
}

/** What the agent lends a compaction. */
export interface CompactionHost {
  readonly agent: { readonly id: string; readonly model: string; readonly provider?: string; readonly promptChange: 'append' | 'replace'; readonly reanchor: ReanchorPolicy }
  record(): readonly ConversationEntry[]
  readonly log: EpochLog
  /** An assembly for the agent's scope, hidden sections taken out. */
  assemble(options: CompactionSourceOptions): Promise<PromptAssembly>
  /** Each effective section's survival, by name. */
  survival(): ReadonlyMap<string, CompactionSurvival>
  /** The format and rules of the latest step, and what it was built with. */
  latest(format: WireFormat | undefined): { format: WireFormat; provider: CacheProvider; input: Omit<WireInput, 'record' | 'tools' | 'model' | 'promptChange'> }
  readonly reuse: ReuseTracker
  counter(provider: CacheProvider): Promise<TokenCounter>
  /** The agent's lowering of `format` (a candidate is built on a copy of it, as a fork is: its head's memo is reused). */
  session(format: WireFormat): WireSession<WireFormat>
  alive(): void
  /** Replaces the record with the new epoch's (the agent resets what it built from the old one). */
  open(epoch: Epoch, baseline: readonly ConversationEntry[]): void
}

/** The last `turns` turns to keep, checked. */
function keepOf(id: string, keep: unknown): number {
  if (keep === undefined) return 0
  const turns = (keep as { turns?: unknown } | null)?.turns
  if (typeof keep !== 'object' || keep === null || typeof turns !== 'number' || !Number.isInteger(turns) || turns < 0) {
    throw invalidCompaction(id, `keep must be { turns: n } with n a whole number of turns (0 or more), received ${JSON.stringify(keep) ?? String(keep)}`)
  }
  return turns
}

/** Where the kept tail starts, refused as `AGENT_NOTHING_TO_COMPACT` when nothing comes before it. */
function tailOf(host: CompactionHost, turns: number): { index: number; turns: number } {
  const record = host.record()
  const from = host.log.turnsFrom(record)
  const tail = keptTail(record, from, turns)
  if (!tail) throw nothingToCompact(host.agent.id, turns, record.slice(from).filter((item) => item.source === 'user').length)
  return tail
}

/** The sections of `rendered` by survival (a section without a registration, added by a listener, is `verbatim`). */
function bySurvival(rendered: RenderedPrompt, survival: ReadonlyMap<string, CompactionSurvival>): Record<CompactionSurvival, string[]> {
  const sections: Record<CompactionSurvival, string[]> = { verbatim: [], summary: [], drop: [] }
  for (const section of rendered.sections) sections[survival.get(section.name) ?? 'verbatim'].push(section.name)
  return sections
}

/** One entry as the summarizer reads it. */
function entryText(item: ConversationEntry): string {
  if (item.role === 'assistant') {
    const calls = (item.tool_calls ?? []).map((call) => (call.type === 'function' ? `${call.function.name}(${call.function.arguments})` : `${call.custom.name}(${call.custom.input})`))
    return [item.content ? `assistant: ${item.content}` : '', ...calls.map((call) => `assistant called ${call}`)].filter(Boolean).join('\n')
  }
  if (item.role === 'tool') return `tool ${item.name ?? item.tool_call_id}: ${item.content}`
  return `user: ${item.content}`
}

/** The text and fork instruction for a summarizer (`agent.compactionSource()`). */
export async function compactionSource(host: CompactionHost, options: CompactionSourceOptions = {}): Promise<CompactionSource> {
  const turns = keepOf(host.agent.id, options.keep)
  const tail = tailOf(host, turns)
  const assembly = await host.assemble(options)
  host.alive()
  const rendered = renderAssembly(assembly)
  const sections = bySurvival(rendered, host.survival())
  const summarised = host.record().slice(0, tail.index).filter((item) => item.source !== 'system-prompt' && item.source !== 'runtime-context')
  const folded = rendered.sections.filter((section) => sections.summary.includes(section.name))
  const text = [...summarised.map(entryText), ...folded.map((section) => `section ${section.name} (leaves the system prompt; keep what it says):\n${section.text}`)].join('\n\n')
  const instruction = [
    'Summarise this conversation so that it can go on from the summary alone.',
    turns > 0 ? `The last ${turns} ${turns === 1 ? 'turn is' : 'turns are'} kept word for word after the summary: summarise only what comes before ${turns === 1 ? 'it' : 'them'}.` : '',
    'The system instructions stay in place word for word: do not restate them.',
    sections.summary.length ? `These system-prompt sections leave the system prompt: fold what they say into the summary: ${sections.summary.join(', ')}.` : '',
  ].filter(Boolean).join(' ')
  return { text, instruction, summarised: tail.index, turns: tail.turns, sections }
}

/** A compaction priced and not yet applied: both re-anchors, the policy's choice, and `apply()`. */
export class CompactionPlan {
  /** The agent's record length and last entry when planned: `apply()` refuses a record that changed since. */
  private readonly planned: { length: number; last: ConversationEntry | undefined; epochs: number }

  /** @internal Made by `agent.planCompaction()`. */
  constructor(
    private readonly host: CompactionHost,
    /** Both re-anchors, priced (`stable-opening` first). */
    readonly offered: readonly ReanchorPrice[],
    /** The re-anchor the agent's policy (`reanchor`) picks. */
    readonly choice: ReanchorKind,
    private readonly baselines: ReadonlyMap<ReanchorKind, readonly ConversationEntry[]>,
    private readonly facts: { format: WireFormat; provider: CacheProvider; summarised: number; hidden: readonly HiddenSection[]; horizon: number },
  ) {
    const record = host.record()
    this.planned = { length: record.length, last: record[record.length - 1], epochs: host.log.epochs.length }
  }

  /** The horizon the prices were compared over. */
  get horizon(): number {
    return this.facts.horizon
  }

  /** How many entries of the record the summary replaces. */
  get summarised(): number {
    return this.facts.summarised
  }

  /** The new epoch's record under `kind` (as `apply(kind)` would make it). */
  baseline(kind: ReanchorKind = this.choice): readonly ConversationEntry[] {
    return this.baselines.get(kind)!
  }

  /**
   * Opens the new epoch with the re-anchor `kind` (default: the policy's choice) and returns it. Refused
   * with `AGENT_COMPACTION_STALE` when the record changed since the plan, `AGENT_INVALID_COMPACTION` for
   * a kind not offered or not available.
   */
  apply(kind: ReanchorKind = this.choice): Epoch {
    const { host, planned } = this
    host.alive()
    const price = this.offered.find((offer) => offer.kind === kind)
    if (!price || !price.available) throw invalidCompaction(host.agent.id, `re-anchor ${JSON.stringify(kind)} is not ${price ? 'available under promptChange "replace"' : 'one of stable-opening, new-opening'}`)
    const record = host.record()
    if (record.length !== planned.length || record[record.length - 1] !== planned.last || host.log.epochs.length !== planned.epochs) {
      throw compactionStale(host.agent.id, planned.length, record.length)
    }
    const baseline = this.baseline(kind)
    const { format, provider, summarised, hidden, horizon } = this.facts
    const epoch: Epoch = {
      epoch: host.log.epochs.length + 1, reanchor: kind, format, provider, summarised, baseline: baseline.length, predicted: price, hidden, offered: this.offered, horizon,
    }
    host.open(epoch, baseline)
    return epoch
  }
}

/** Whether two records send the same entries (the same sources and texts). */
function sameEntries(a: readonly ConversationEntry[], b: readonly ConversationEntry[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i] || (item.source === b[i].source && item.content === b[i].content && !('reanchor' in item) && !('reanchor' in b[i])))
}

/** Prices both re-anchors for `options` (`agent.planCompaction()`). */
export async function planCompaction(host: CompactionHost, options: CompactionOptions): Promise<CompactionPlan> {
  const { id, model, promptChange } = host.agent
  if (typeof options !== 'object' || options === null) throw invalidCompaction(id, 'options must be an object with a summary')
  const { summary } = options
  if (typeof summary !== 'string' || summary.trim() === '') throw invalidCompaction(id, 'summary must be a non-empty text (the summarizer\'s reply)')
  const horizon = options.horizon ?? DEFAULT_REANCHOR_HORIZON
  if (typeof horizon !== 'number' || !Number.isFinite(horizon) || horizon < 0) throw invalidCompaction(id, `horizon must be a number of later requests (0 or more), received ${JSON.stringify(horizon)}`)
  const turns = keepOf(id, options.keep)
  const tail = tailOf(host, turns)
  const { format, provider, input } = host.latest(options.format)
  const assembly = await host.assemble(options)
  const counter = await host.counter(provider)
  host.alive()
  // The sections this compaction takes out: `summary` and `drop`, at the text they have now.
  const survival = host.survival()
  const leaving = assembly.sections.filter((section) => (survival.get(section.name) ?? 'verbatim') !== 'verbatim')
  const names = new Set(leaving.map((section) => section.name))
  const hidden = [...host.log.hidden.filter((item) => !names.has(item.section)), ...leaving.map((section) => ({ section: section.name, sha256: sha256(section.text) }))]
    .sort((a, b) => (a.section < b.section ? -1 : a.section > b.section ? 1 : 0))
  const kept: PromptAssembly = { ...assembly, sections: assembly.sections.filter((section) => !names.has(section.name)) }
  const rendered = renderAssembly(kept)
  const prices = cachePricesOf(provider, model)
  const record = host.record()
  const offered: ReanchorPrice[] = []
  const baselines = new Map<ReanchorKind, readonly ConversationEntry[]>()
  for (const kind of REANCHOR_KINDS) {
    const available = kind === 'new-opening' || promptChange === 'append'
    const baseline = epochBaseline({ record, policy: promptChange, cut: tail.index, system: rendered.system, snapshot: rendered.snapshot, summary, reanchor: available ? kind : 'new-opening' })
    // One prompt version (or none): both re-anchors are the same request, measured once.
    const same = offered.length > 0 && sameEntries(baselines.get(offered[0].kind)!, baseline)
    if (same) {
      offered.push(Object.freeze({ ...offered[0], kind, available }))
      baselines.set(kind, baselines.get(offered[0].kind)!)
      continue
    }
    const build = host.session(format).fork({ ...input, record: baseline, tools: kept.tools, model, promptChange })
    const report = host.reuse.measureSide({ format, provider, build, rendered, assembly: kept, now: Date.now() }, counter, { kind: 'compact' })
    offered.push(Object.freeze(reanchorPrice(kind, available, report, prices, horizon)))
    baselines.set(kind, Object.freeze(baseline))
  }
  const choice = pickReanchor(host.agent.reanchor, offered)
  return new CompactionPlan(host, Object.freeze(offered), choice, baselines, { format, provider, summarised: tail.index, hidden: Object.freeze(hidden), horizon })
}
