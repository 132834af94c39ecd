/**
 * What an agent with the priced TTL plan or a price table (`wire.ttlPlan`, `wire.prices`, R-WIRE-12 to
 * 15) measured of the request a reply answers: when it was sent (the agents' clock) and the breakpoints
 * it placed (kind, prefix tokens). The plan of the next request reads both (the gaps between requests,
 * the latest breakpoints of the format), and the reply's price reads the plan, so a ledger keeps them on
 * the reply's line (`request`), and a restored agent plans and prices as the agent that wrote the
 * ledger would have (R-LEDGER-10). Kept beside the entry (the record's entries stay what `dsh-wire`
 * lowers), as a system-prompt version's parts are. Cordis-free.
 * @module
 */
import type { ConversationEntry, TtlSegmentInput, WireFormat } from 'dsh-wire'
import { BREAKPOINT_KINDS } from 'dsh-wire/internal'
import { wireFormatNames } from 'dsh-wire'
import { fail } from './entry-shape.js'

/** The facts of one sent request, as a reply's ledger line keeps them. */
export interface RequestFacts {
  /** When it was sent, in milliseconds since the epoch (the `agents` service's clock). */
  at: number
  format: WireFormat
  /** Its breakpoints in stream order: each one's kind and the tokens of the prefix it ends. */
  breakpoints: TtlSegmentInput[]
}

const requestOfEntry = new WeakMap<ConversationEntry, RequestFacts>()

/** The request facts kept with the reply `entry`, if any. */
export function entryRequest(entry: ConversationEntry): RequestFacts | undefined {
  return requestOfEntry.get(entry)
}

/** Keeps `facts` with the reply `entry` (a `record()` after a planned request, or a restore that read them). */
export function keepEntryRequest(entry: ConversationEntry, facts: RequestFacts): void {
  requestOfEntry.set(entry, facts)
}

/** The facts in the ledger's fixed key order (the one form a line has). */
export function canonicalRequest(facts: RequestFacts): RequestFacts {
  return { at: facts.at, format: facts.format, breakpoints: facts.breakpoints.map((point) => ({ kind: point.kind, prefixTokens: point.prefixTokens })) }
}

/** A ledger line's `request`, checked (throws `EntryShapeError`: the reader names the line). */
export function requestFactsShape(value: unknown): RequestFacts {
  const { at, format, breakpoints } = (typeof value === 'object' && value !== null && !Array.isArray(value) ? value : fail('request must be { at, format, breakpoints }')) as Record<string, unknown>
  if (typeof at !== 'number' || !Number.isFinite(at)) fail('request.at must be a time in milliseconds')
  if (!wireFormatNames().includes(format as WireFormat)) fail(`request.format names ${JSON.stringify(format)}, not a registered wire format`)
  if (!Array.isArray(breakpoints)) fail('request.breakpoints must be a list of { kind, prefixTokens }')
  for (const point of breakpoints as unknown[]) {
    const { kind, prefixTokens } = (point ?? {}) as Record<string, unknown>
    if (!BREAKPOINT_KINDS.includes(kind as never) || typeof prefixTokens !== 'number' || !Number.isInteger(prefixTokens) || prefixTokens < 0) {
      fail(`request.breakpoints: each is { kind: ${BREAKPOINT_KINDS.map((name) => JSON.stringify(name)).join(' | ')}, prefixTokens: a count }`)
    }
  }
  return canonicalRequest(value as RequestFacts)
}
