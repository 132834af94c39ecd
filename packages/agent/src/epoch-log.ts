/**
 * An agent's epochs: the entries and marks of the epochs it closed (the ledger holds them all, the
 * record only the current epoch's), the sections its compactions took out of the system prompt, and
 * the epoch whose first request and reply are still to come (the step result and the reported cost
 * are set on it). Cordis-free.
 * @module
 */
import type { PromptAssembly } from 'dsh-system-prompt'
import { cachePricesOf, type ConversationEntry, type Usage } from 'dsh-wire'
import { sha256, type Epoch, type EpochMark, type HiddenSection } from './epoch.js'
import { reportedCost } from './reanchor-price.js'

/** One line of an agent's ledger after the header: a conversation entry, or the mark of a compaction. */
export type LedgerItem = ConversationEntry | EpochMark

/** Whether `item` is an epoch's mark (a conversation entry has a `role`, a mark never). */
export function isEpochMark(item: LedgerItem): item is EpochMark {
  return !('role' in item)
}

export class EpochLog {
  /** The entries and marks of the closed epochs, in ledger order. */
  private readonly past: LedgerItem[] = []
  readonly epochs: Epoch[] = []
  /** The sections the latest compaction took out of the system prompt (sorted by name). */
  hidden: readonly HiddenSection[] = []
  private awaitingStep: Epoch | undefined
  private awaitingReply: Epoch | undefined

  /**
   * Closes the current epoch (its entries `closed`) with `epoch`: its mark goes in the ledger after them.
   * `live`: a compaction (its first step and reply are awaited), not a restore.
   */
  open(epoch: Epoch, closed: readonly ConversationEntry[], live: boolean): void {
    const { reported: _reported, ...mark } = epoch
    this.past.push(...closed, Object.freeze(mark))
    this.epochs.push(epoch)
    this.hidden = epoch.hidden
    this.awaitingStep = live ? epoch : undefined
    this.awaitingReply = undefined
  }

  /** Where the current epoch's own turns start in `record`: after its summary (0 before any compaction). */
  turnsFrom(record: readonly ConversationEntry[]): number {
    if (!this.epochs.length) return 0
    const summary = record.findIndex((item) => item.source === 'user')
    return summary + 1
  }

  /** How many ledger lines after the header the agent's ledger has, with `current` entries in the current epoch. */
  length(current: number): number {
    return this.past.length + current
  }

  /** The ledger items from index `from` (after the header), the current epoch's `record` last. */
  items(record: readonly ConversationEntry[], from = 0): LedgerItem[] {
    if (from >= this.past.length) return record.slice(from - this.past.length)
    return [...this.past.slice(from), ...record]
  }

  /** Takes the hidden sections out of `assembly` (those whose text is still the one they had when hidden). */
  hide(assembly: PromptAssembly): PromptAssembly {
    if (!this.hidden.length) return assembly
    const hidden = new Map(this.hidden.map((item) => [item.section, item.sha256]))
    const kept = assembly.sections.filter((section) => hidden.get(section.name) !== sha256(section.text))
    if (kept.length !== assembly.sections.length) assembly.sections = kept
    return assembly
  }

  /** The epoch a step opens, once: its first step's result carries it, and its first reply's usage is its reported cost. */
  stepped(): Epoch | undefined {
    const epoch = this.awaitingStep
    this.awaitingStep = undefined
    this.awaitingReply = epoch
    return epoch
  }

  /** Sets the reported cost of the epoch whose first request this reply answers. */
  replied(usage: Usage, model: string): void {
    const epoch = this.awaitingReply
    if (!epoch) return
    this.awaitingReply = undefined
    epoch.reported = Object.freeze(reportedCost(usage, cachePricesOf(epoch.provider, model)))
  }
}
