/**
 * The resume guard (R-LEDGER-8): the first step of an agent restored from a ledger compares the system
 * prompt it renders now with the version the ledger says was sent last. The same: the step goes on.
 * Different (a plugin upgraded, a persona edited, a clock-dependent section): by the restore's policy
 * the step either sends the stored version as it was (`authoritative`) or the new one as the agent's
 * `promptChange` records any change (`new-epoch`: appended under `append`, a new opening under
 * `replace`), and in both cases reports the difference (section, owner, layer, cause, predicted cache
 * cost) before its request is returned: `result.resume`, the restore's `onResume`, `agent/resume`.
 * Pure apart from the tokenizer the step loaded; Cordis-free.
 *
 * Under `authoritative` the stored version stays pinned while the deployment renders what it rendered
 * at the resume; a change after that (a new edit, the next day's date) is recorded as any change is.
 * @module
 */
import type { PromptAssembly, RenderedPrompt } from 'dsh-system-prompt'
import type { CacheProvider, ConversationEntry, PromptChangePolicy, SessionBuild, TokenCounter, WireFormat } from 'dsh-wire'
import type { ScopeKey } from 'dsh-scope'
import { ReuseTracker } from './cache-report.js'
import { stepEntries } from './conversation.js'
import { entryParts, firstSectionBreak, promptParts, type PromptPart } from './ledger-parts.js'

/** What the first step after a restore sends when its system prompt differs from the ledger's last version. */
export type ResumePolicy = 'authoritative' | 'new-epoch'

/** The resume policies, in the order the docs give them. */
export const RESUME_POLICIES: readonly ResumePolicy[] = ['authoritative', 'new-epoch']

/** What the first step after a restore found and did. */
export interface ResumeReport {
  agent: string
  policy: ResumePolicy
  /** Whether the system prompt rendered now differs from the version the ledger says was sent last. */
  changed: boolean
  /**
   * `none` (unchanged), `stored-prompt` (`authoritative`: the stored version sent as it was), or what
   * `new-epoch` did under the agent's `promptChange`: `new-version` (appended) or `new-opening` (replaced).
   */
  action: 'none' | 'stored-prompt' | 'new-version' | 'new-opening'
  /** The prompt version the ledger sent last (0: none). */
  storedVersion: number
  /** Whether that version recorded its parts (a ledger of format version 1 records none). */
  parts: boolean
  /** Where the rendered prompt first differs (absent when unchanged): the section, its owner and layer, the cause. */
  difference?: { section: string | null; owner: string | null; layer: string | null; cause: string }
  /**
   * What the re-rendered request would miss of the provider's cache, predicted as the reuse report
   * predicts (the stored request taken as just sent): what `new-epoch` pays, what `authoritative` avoids.
   */
  cost?: { requestTokens: number; predictedCachedTokens: number; missedTokens: number; tokenizer: string }
}

/** What a step hands the guard: its rendering, the record before it, and how it builds a request of its format. */
export interface ResumeCheck {
  rendered: RenderedPrompt
  assembly: PromptAssembly
  record: readonly ConversationEntry[]
  latest: { system?: ConversationEntry; snapshot?: ConversationEntry }
  format: WireFormat
  provider: CacheProvider
  counter: TokenCounter
  /** A fresh build (no session state) of the request for `record`, as this step builds its own. */
  build: (record: readonly ConversationEntry[]) => SessionBuild<WireFormat>
  layerOf: (scope: ScopeKey | undefined) => string
}

/** The guard's decision for one step: the system prompt to record, and the report of the first step. */
export interface ResumeDecision {
  system: string
  report?: ResumeReport
  pin?: { rendered: string; stored: string }
}

/**
 * What `new-epoch` does today: nothing beyond what the agent's `promptChange` does with any change (the
 * new version appended, or the new opening). Compaction epochs take this over (one place to change).
 */
export function newEpochOnResume(promptChange: PromptChangePolicy): 'new-version' | 'new-opening' {
  return promptChange === 'replace' ? 'new-opening' : 'new-version'
}

/** One restored agent's guard: pending until its first step, then (under `authoritative`) the pin. */
export class ResumeGuard {
  private pending = true
  private pin?: { rendered: string; stored: string }

  /** `announce` tells the first step's report (the restore's `onResume`, `agent/resume`: `resume-event.ts`). */
  constructor(
    private readonly agent: { readonly id: string; readonly promptChange: PromptChangePolicy },
    readonly policy: ResumePolicy,
    private readonly announce: (report: ResumeReport) => void,
  ) {}

  /** The decision for a step (nothing changes until {@link commit}): `undefined` when the guard has nothing to do. */
  check(input: ResumeCheck): ResumeDecision | undefined {
    const fresh = input.rendered.system
    if (!this.pending) {
      if (!this.pin) return undefined
      return fresh === this.pin.rendered ? { system: this.pin.stored, pin: this.pin } : { system: fresh }
    }
    const stored = input.latest.system?.content ?? ''
    const storedVersion = input.record.filter((item) => item.source === 'system-prompt').length
    const storedParts = input.latest.system && entryParts(input.latest.system)
    const base = { agent: this.agent.id, policy: this.policy, storedVersion, parts: storedParts !== undefined }
    // Nothing sent yet (a ledger of the header alone): there is no prefix to keep.
    if (fresh === stored || !input.latest.system) return { system: fresh, report: { ...base, changed: false, action: 'none' } }
    const difference = describe(stored, storedParts, fresh, promptParts(input.rendered, input.assembly, input.layerOf))
    const cost = predictCost(input, fresh)
    if (this.policy === 'authoritative') {
      const pin = { rendered: fresh, stored }
      return { system: stored, pin, report: { ...base, changed: true, action: 'stored-prompt', difference, cost } }
    }
    return { system: fresh, report: { ...base, changed: true, action: newEpochOnResume(this.agent.promptChange), difference, cost } }
  }

  /** The stored version when `fresh` is what the deployment rendered at the resume and the policy pinned it, else `undefined`. */
  pinned(fresh: string): string | undefined {
    return this.pin && fresh === this.pin.rendered ? this.pin.stored : undefined
  }

  /** Takes a step's decision once its request is built: the pin kept (or dropped), the first step's report announced. */
  commit(decision: ResumeDecision): void {
    this.pin = decision.pin
    if (!this.pending) return
    this.pending = false
    this.announce(decision.report!)
  }
}

/** Where the rendered prompt first differs from the stored version: by parts when the ledger recorded them, else at the first differing byte. */
function describe(stored: string, storedParts: readonly PromptPart[] | undefined, fresh: string, freshParts: readonly PromptPart[]): NonNullable<ResumeReport['difference']> {
  if (storedParts) {
    const change = firstSectionBreak(storedParts, freshParts)
    if (change) return { section: change.section, owner: change.owner, layer: change.layer, cause: change.cause }
    return { section: null, owner: null, layer: null, cause: 'system prompt replaced: the opening instructions read differently' }
  }
  const a = Buffer.from(stored, 'utf8')
  const b = Buffer.from(fresh, 'utf8')
  let at = 0
  while (at < a.length && at < b.length && a[at] === b[at]) at++
  // The blank line after a section counts as the section's: a section appended after it starts past it.
  const part = freshParts.find((item) => at < item.end + 2) ?? freshParts[freshParts.length - 1]
  const cause = `system prompt differs from the stored version from byte ${at}`
  if (!part) return { section: null, owner: null, layer: null, cause: `${cause} (the ledger records no parts)` }
  return { section: part.name, owner: part.owner, layer: part.layer, cause: `${cause}, in section "${part.name}" as rendered now (the ledger records no parts)` }
}

/** What the re-rendered request would miss, measured as the reuse report measures a request against the one before it. */
function predictCost(input: ResumeCheck, fresh: string): NonNullable<ResumeReport['cost']> {
  const snapshot = input.latest.snapshot?.content ?? ''
  const next = [...input.record, ...stepEntries(input.record, fresh, undefined, snapshot, input.latest)]
  const tracker = new ReuseTracker(() => undefined)
  const now = Date.now()
  const measure = (record: readonly ConversationEntry[]) =>
    tracker.measure({ format: input.format, provider: input.provider, build: input.build(record), rendered: input.rendered, assembly: input.assembly, now }, input.counter)
  measure(input.record)
  const report = measure(next)
  return { requestTokens: report.requestTokens, predictedCachedTokens: report.predictedCachedTokens, missedTokens: report.requestTokens - report.predictedCachedTokens, tokenizer: report.tokenizer }
}
