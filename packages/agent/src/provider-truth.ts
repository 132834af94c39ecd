/**
 * What an agent keeps for the provider's own mechanisms between its requests (issue 23, item 4): the
 * times of its requests (from the `agents` service's clock), from which the TTL plan measures the gaps;
 * each format's latest breakpoints, which the next plan prices; and the price table's running total of
 * the conversation. Everything here is off unless the agent's `wire` options turn it on.
 * @module
 */
import {
  addCosts, costOf, planTtl, priceOf, wireFormat, type BreakpointOptions, type CacheReport, type Cost, type SessionBuild, type TtlPlan, type TtlSegmentInput,
  type Usage, type WireFormat,
} from 'dsh-wire'
import type { RequestFacts } from './ledger-request.js'
import type { AgentWireOptions } from './wire-options.js'

/** How many of the latest gaps the plan reads. */
export const MEASURED_GAPS = 32

export class ProviderTruth {
  private readonly times: number[] = []
  private readonly points = new Map<WireFormat, TtlSegmentInput[]>()
  /** The latest request's report (a restored request's: its plan, recomputed), which its reply's usage prices. */
  private latest: Pick<CacheReport, 'ttlPlan' | 'cost'> | undefined
  private total: Cost | undefined
  /** The latest planned request's facts, until a reply takes them to the ledger. */
  private unanswered: RequestFacts | undefined

  constructor(private readonly wire: AgentWireOptions | undefined, private readonly model: string) {}

  /** The gaps between the agent's requests so far, oldest first. */
  gaps(): number[] {
    return this.times.slice(1).map((time, i) => time - this.times[i])
  }

  /**
   * The breakpoint options of a request of `format`: `given`, with each kind's TTL from the plan when
   * `wire.ttlPlan` is on and the format plans breakpoints (the kinds `given` fixes stay as given, rule 3
   * permitting). The plan prices the format's latest breakpoints against the gaps measured so far.
   */
  breakpoints(format: WireFormat, given: BreakpointOptions | false | undefined): { breakpoints: BreakpointOptions | false | undefined; plan?: TtlPlan } {
    if (!this.wire?.ttlPlan || given === false || !wireFormat(format).planner) return { breakpoints: given }
    const plan = planTtl(this.points.get(format) ?? [], this.gaps().slice(-MEASURED_GAPS), given?.ttl)
    return { breakpoints: { ...given, ttl: plan.ttl }, plan }
  }

  /** Keeps what the next plan reads of a measured request, and sets its plan on its report. */
  measured(format: WireFormat, build: SessionBuild<WireFormat>, report: CacheReport, plan: TtlPlan | undefined, now: number): void {
    this.times.push(now)
    if (this.times.length > MEASURED_GAPS + 1) this.times.shift()
    const points = build.breakpoints.map((point) => ({ kind: point.kind, prefixTokens: point.prefixTokens }))
    this.points.set(format, points)
    if (plan) report.ttlPlan = plan
    this.latest = report
    // What a restore needs to plan and price as this agent does (R-LEDGER-10).
    if (this.wire?.ttlPlan || this.wire?.prices) this.unanswered = { at: now, format, breakpoints: points }
  }

  /** The facts of the planned request a reply answers (once: the next reply takes none), for its ledger line. */
  answered(): RequestFacts | undefined {
    const facts = this.unanswered
    this.unanswered = undefined
    return facts
  }

  /**
   * Takes back a request's facts from a ledger (`agents.restore()`), as {@link measured} kept them,
   * before its reply is restored: the plan it was sent with is made again from the facts before it (so
   * the reply's usage is priced as it was), and the reply takes the facts back to its ledger line.
   */
  restored(facts: RequestFacts): void {
    const plan = this.wire?.ttlPlan ? planTtl(this.points.get(facts.format) ?? [], this.gaps().slice(-MEASURED_GAPS)) : undefined
    this.times.push(facts.at)
    if (this.times.length > MEASURED_GAPS + 1) this.times.shift()
    this.points.set(facts.format, facts.breakpoints)
    this.latest = plan ? { ttlPlan: plan } : {}
    this.unanswered = facts
  }

  /** With a price table: the latest request's cost from its reported usage, and the conversation's so far, on its report. */
  priced(usage: Usage): void {
    const price = this.wire?.prices === undefined ? undefined : priceOf(this.wire.prices, this.model)
    if (!price || !this.latest) return
    // Tokens written under a 1-hour breakpoint: the plan's 1h segments, at most what was written.
    const longWrites = this.latest.ttlPlan?.segments.filter((segment) => segment.ttl === '1h').reduce((sum, segment) => sum + segment.tokens, 0) ?? 0
    const request = costOf(usage, price, longWrites)
    // A request priced again (a usage recorded twice) replaces its figures in the total.
    const before = this.latest.cost?.request
    const base = before && this.total ? addCosts(this.total, negate(before)) : this.total
    this.total = base ? addCosts(base, request) : request
    this.latest.cost = { request, conversation: this.total }
  }
}

function negate(cost: Cost): Cost {
  return { written: -cost.written, read: -cost.read, uncached: -cost.uncached, output: -cost.output, total: -cost.total }
}
