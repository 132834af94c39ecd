/**
 * Epochs (R-EPOCH): what a compaction opens. The record before the kept tail is replaced by the
 * harness's summary; the newest system-prompt version and runtime-context snapshot become the new
 * epoch's baseline, so neither the versions nor the snapshots they supersede are carried twice; the
 * opening is either kept byte for byte with the newest version after it as one re-anchor message
 * (`stable-opening`) or replaced by the newest version (`new-opening`). Pure and Cordis-free: the
 * agent (`compaction.ts`) decides, this module builds the entries and the ledger's mark.
 * @module
 */
import { createHash } from 'node:crypto'
import { entry, type CacheProvider, type ConversationEntry, type PromptChangePolicy, type WireFormat } from 'dsh-wire'
import { sentEntries } from 'dsh-wire/internal'
import { reanchorText } from './reanchor-text.js'

/** How a new epoch anchors its system prompt. */
export type ReanchorKind = 'stable-opening' | 'new-opening'

/** Which re-anchor an agent's compaction takes: the `cheapest` over the plan's horizon (default), or always one kind. */
export type ReanchorPolicy = 'cheapest' | ReanchorKind

/** The re-anchor kinds, in the order a plan lists (and a tie picks) them. */
export const REANCHOR_KINDS: readonly ReanchorKind[] = Object.freeze(['stable-opening', 'new-opening'])

/** The first line of the user message that carries a compaction's summary; the summary follows after one blank line. */
export const COMPACTION_SUMMARY_MARKER = '[conversation summary: the turns before this point were compacted into the summary below]'

/** What a compaction keeps word for word: the last `turns` turns (a turn starts at a user input). */
export interface CompactionKeep {
  turns: number
}

/** A section a compaction took out of the system prompt (`summary` or `drop`): hidden while its text is the one it had then. */
export interface HiddenSection {
  readonly section: string
  /** SHA-256 (hex) of the section's text as assembled (before interpolation). */
  readonly sha256: string
}

/** What a re-anchor costs, in token-equivalents (tokens times the family's price multiple of an uncached input token). */
export interface ReanchorPrice {
  readonly kind: ReanchorKind
  /** False under `promptChange: 'replace'` for `stable-opening` (the newest version is always the opening there). */
  readonly available: boolean
  /** The tokens of the new epoch's first request (before the next user input). */
  readonly requestTokens: number
  /** Of those, the tokens the family's rules serve from the cache the latest request left. */
  readonly cachedTokens: number
  /** The rest, written (or read uncached) now: `requestTokens − cachedTokens`. */
  readonly writtenTokens: number
  /** Paid now: `cachedTokens × read + writtenTokens × write`. */
  readonly costNow: number
  /** Paid again by every later request of the epoch, which re-reads the baseline from cache: `requestTokens × read`. */
  readonly costPerRequest: number
  /** `costNow + horizon × costPerRequest`: what the policy `cheapest` compares. */
  readonly total: number
}

/** What the provider reported for the epoch's first request (from the usage recorded with its reply). */
export interface ReportedEpochCost {
  readonly inputTokens: number | null
  readonly cachedTokens: number | null
  /** `cachedTokens × read + (inputTokens − cachedTokens) × write`, when both were reported. */
  readonly costNow: number | null
}

/** An epoch's line in the ledger (after the entries of the epoch it closes, before its own baseline entries). */
export interface EpochMark {
  /** 1 for the first compaction, then 2, ... */
  readonly epoch: number
  readonly reanchor: ReanchorKind
  /** The format and caching rules the re-anchors were priced with. */
  readonly format: WireFormat
  readonly provider: CacheProvider
  /** How many entries of the closed epoch's record the summary replaced. */
  readonly summarised: number
  /** How many entries the new epoch starts with (the ledger lines that follow the mark). */
  readonly baseline: number
  /** The chosen re-anchor's predicted cost, before anything was paid. */
  readonly predicted: ReanchorPrice
  /** The sections taken out of the system prompt, by name and text hash (sorted by name). */
  readonly hidden: readonly HiddenSection[]
  /** Both re-anchors as planned, and the horizon they were compared over (on the line from ledger format 4). */
  readonly offered?: readonly ReanchorPrice[]
  readonly horizon?: number
}

/** An epoch as the agent lists it (`agent.epochs`): its mark, both re-anchors' prices, and the reported cost once the first reply after it has usage. */
export interface Epoch extends EpochMark {
  /** Both re-anchors as planned (an epoch restored from a ledger older than format 4 has only the chosen one's). */
  readonly offered: readonly ReanchorPrice[]
  /** The horizon the prices were compared over (later requests per epoch). */
  readonly horizon: number
  /** Set when the first reply after the epoch's first step is recorded with usage. */
  reported?: ReportedEpochCost
}

/** SHA-256 (hex) of `text`. */
export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}

/**
 * Where the kept tail starts in `record`: at the `turns`-th user input from the end, counting only those
 * at or after `from` (the entries before `from` are the epoch's own baseline). Returns the index and
 * the number of turns the epoch holds; `index === record.length` for `turns: 0`; `undefined` when the
 * epoch has no more than `turns` turns (nothing would be summarised).
 */
export function keptTail(record: readonly ConversationEntry[], from: number, turns: number): { index: number; turns: number } | undefined {
  const starts: number[] = []
  for (let i = from; i < record.length; i++) if (record[i].source === 'user') starts.push(i)
  if (turns === 0) return starts.length || record.length > from ? { index: record.length, turns: starts.length } : undefined
  if (starts.length <= turns) return undefined
  return { index: starts[starts.length - turns], turns: starts.length }
}

/** What a new epoch is made from. */
export interface BaselineInput {
  record: readonly ConversationEntry[]
  policy: PromptChangePolicy
  /** Where the kept tail starts (`keptTail`). */
  cut: number
  /** The newest system prompt (rendered now, without the sections the compaction takes out); `''` for none. */
  system: string
  /** The newest runtime-context snapshot (rendered now); `''` for none. */
  snapshot: string
  summary: string
  reanchor: ReanchorKind
}

/**
 * The new epoch's record: the opening (the current one, byte for byte, under `stable-opening`; the
 * newest version under `new-opening`), the newest version as one re-anchor message when it differs
 * from a kept opening (sent as what changed, `reanchor-text.ts`), the summary, the newest snapshot, then the kept tail without the system-prompt
 * versions and snapshots the baseline supersedes.
 */
export function epochBaseline(input: BaselineInput): ConversationEntry[] {
  const { record, policy, cut, system, snapshot, summary, reanchor } = input
  const entries: ConversationEntry[] = []
  if (system !== '') {
    const opening = reanchor === 'stable-opening' ? currentOpening(record, policy) : undefined
    if (opening !== undefined) entries.push(opening)
    if (opening?.content !== system) {
      // Under a kept opening, the newest version is sent as what changed (when that is shorter): its content stays the version.
      const reanchor = opening === undefined ? undefined : reanchorText(opening.content as string, system)
      entries.push(entry(reanchor === undefined ? { role: 'system', content: system } : { role: 'system', content: system, reanchor }, 'system-prompt'))
    }
  }
  entries.push(entry({ role: 'user', content: `${COMPACTION_SUMMARY_MARKER}\n\n${summary}` }, 'user'))
  if (snapshot !== '') entries.push(entry({ role: 'user', content: snapshot }, 'runtime-context'))
  for (const item of record.slice(cut)) if (item.source !== 'system-prompt' && item.source !== 'runtime-context') entries.push(item)
  return entries
}

/** The system-prompt entry a request of `record` opens with under `policy`, if any. */
export function currentOpening(record: readonly ConversationEntry[], policy: PromptChangePolicy): ConversationEntry | undefined {
  const first = sentEntries(record, policy)[0]
  return first?.source === 'system-prompt' ? first : undefined
}
