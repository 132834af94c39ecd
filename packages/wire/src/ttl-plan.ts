/**
 * A priced TTL plan for Anthropic's cache breakpoints (issue 23, item 4): each breakpoint's lifetime
 * (`5m` or `1h`) chosen from the measured gaps between the agent's requests, with the expected cost in
 * token-equivalents (an uncached input token is 1). Prices, from Anthropic's prompt-caching guide
 * (platform.claude.com/docs/en/build-with-claude/prompt-caching, read 2026-12-01): a 5-minute write costs
 * 1.25x, a 1-hour write 2x, a read 0.1x; an entry lives for its TTL after it was last written or read.
 *
 * The rules (`docs/reference/wire.md`, R-WIRE-12 to 15):
 *   1. each breakpoint caches its segment (the tokens since the breakpoint before it); the next request
 *      reads the segment when the gap to it is within the TTL, else writes it again. With `p(t)` the
 *      share of measured gaps within `t`, a segment of `n` tokens is expected to cost
 *      `n * (p(t) * 0.1 + (1 - p(t)) * write(t))` per request;
 *   2. each breakpoint takes the TTL that costs less (a tie keeps `5m`, the default);
 *   3. never a `1h` breakpoint after a `5m` one (the API's order rule): once a breakpoint is `5m`, every
 *      later one is too;
 *   4. no measured gap yet (the first request): every breakpoint `5m`.
 * Pure and Cordis-free.
 * @module
 */
import { BREAKPOINT_KINDS, type BreakpointKind, type CacheTtl } from './breakpoints.js'
import { TTL_MS } from './caching-rules.js'

/** What a token costs, as a multiple of an uncached input token. */
export const TOKEN_EQUIVALENTS = Object.freeze({ write5m: 1.25, write1h: 2, read: 0.1 })

/** One breakpoint's segment: its kind and the tokens of the prefix it ends (from the request's start). */
export interface TtlSegmentInput {
  kind: BreakpointKind
  prefixTokens: number
}

/** One breakpoint's choice. */
export interface TtlSegment {
  kind: BreakpointKind
  /** The tokens between the breakpoint before it and this one. */
  tokens: number
  ttl: CacheTtl
  /** The expected cost per request, in token-equivalents, under each TTL. */
  cost: Record<CacheTtl, number>
}

/** The plan of one request. */
export interface TtlPlan {
  /** The TTL per kind, as `BreakpointOptions.ttl` takes it. */
  ttl: Partial<Record<BreakpointKind, CacheTtl>>
  segments: TtlSegment[]
  /** The share of measured gaps within each lifetime. */
  within: Record<CacheTtl, number>
  /** The expected cost per request of the cached segments, in token-equivalents: all `5m`, all `1h`, and the plan's. */
  expected: { '5m': number; '1h': number; plan: number }
  /** How many gaps it was measured from. */
  gaps: number
}

/** The expected cost per request of `tokens` kept with `ttl`, when a share `within` of the gaps fit in it (rule 1). */
export function segmentCost(tokens: number, ttl: CacheTtl, within: number): number {
  const write = ttl === '1h' ? TOKEN_EQUIVALENTS.write1h : TOKEN_EQUIVALENTS.write5m
  return tokens * (within * TOKEN_EQUIVALENTS.read + (1 - within) * write)
}

/**
 * The plan for breakpoints `points` (in stream order) from the measured `gaps` (milliseconds between
 * the agent's consecutive requests). `fixed`: kinds whose TTL the caller set (kept, and rule 3 holds
 * after them).
 */
export function planTtl(points: readonly TtlSegmentInput[], gaps: readonly number[], fixed: Partial<Record<BreakpointKind, CacheTtl>> = {}): TtlPlan {
  const share = (ttl: CacheTtl) => (gaps.length ? gaps.filter((gap) => gap <= TTL_MS[ttl]).length / gaps.length : 0)
  const within = { '5m': share('5m'), '1h': share('1h') }
  const ordered = [...points].sort((a, b) => BREAKPOINT_KINDS.indexOf(a.kind) - BREAKPOINT_KINDS.indexOf(b.kind))
  const segments: TtlSegment[] = []
  let before = 0
  let short = false
  for (const point of ordered) {
    const tokens = Math.max(0, point.prefixTokens - before)
    before = Math.max(before, point.prefixTokens)
    const cost = { '5m': segmentCost(tokens, '5m', within['5m']), '1h': segmentCost(tokens, '1h', within['1h']) }
    const cheaper: CacheTtl = gaps.length && cost['1h'] < cost['5m'] ? '1h' : '5m'
    const ttl: CacheTtl = short ? '5m' : fixed[point.kind] ?? cheaper
    if (ttl === '5m') short = true
    segments.push({ kind: point.kind, tokens, ttl, cost })
  }
  const ttl: Partial<Record<BreakpointKind, CacheTtl>> = {}
  // Kinds without a breakpoint in this request follow the rule too (a later request may place one).
  let seenShort = false
  for (const kind of BREAKPOINT_KINDS) {
    const chosen = segments.find((segment) => segment.kind === kind)?.ttl ?? (seenShort ? '5m' : segments.some((segment) => segment.ttl === '1h' && BREAKPOINT_KINDS.indexOf(segment.kind) > BREAKPOINT_KINDS.indexOf(kind)) ? '1h' : '5m')
    if (chosen === '5m') seenShort = true
    ttl[kind] = chosen
  }
  const sum = (pick: (segment: TtlSegment) => number) => segments.reduce((total, segment) => total + pick(segment), 0)
  return { ttl, segments, within, expected: { '5m': sum((s) => s.cost['5m']), '1h': sum((s) => s.cost['1h']), plan: sum((s) => s.cost[s.ttl]) }, gaps: gaps.length }
}
