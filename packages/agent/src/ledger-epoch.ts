/**
 * An epoch's line in a ledger, read back (R-EPOCH-4): its fields checked, then written again the
 * way the ledger writes them (`epochFields`), so a mark that is not canonical is refused as any line is.
 * @module
 */
import { isProvider, wireFormatNames } from 'dsh-wire'
import type { EpochMark, HiddenSection, ReanchorPrice } from './epoch.js'
import { REANCHOR_KINDS } from './epoch.js'
import { ledgerBadLine, ledgerNotCanonical } from './errors.js'
import { epochFields, type LedgerVersion } from './ledger-format.js'

/** An epoch mark as read: its line number and hash, and `at`, the index in the ledger's entries of its first baseline entry. */
export type LedgerEpoch = EpochMark & { readonly line: number; readonly hash: string; readonly at: number }

const KEYS = ['epoch', 'reanchor', 'format', 'provider', 'summarised', 'baseline', 'predicted', 'hidden']
/** The keys an epoch line adds from format 4. */
const KEYS_4 = ['offered', 'horizon']
const PRICE_KEYS = ['kind', 'available', 'requestTokens', 'cachedTokens', 'writtenTokens', 'costNow', 'costPerRequest', 'total']

function isPrice(price: unknown): boolean {
  return typeof price === 'object' && price !== null && !Array.isArray(price) && PRICE_KEYS.every((key) => key in price) && Object.keys(price).every((key) => PRICE_KEYS.includes(key))
}

function count(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0
}

/**
 * The mark of ledger line `line` (the `number`-th epoch, before entry `at`) of a ledger of format
 * `version`, refused with `AGENT_LEDGER_BAD_LINE` / `AGENT_LEDGER_NOT_CANONICAL`.
 */
export function epochMarkOf(line: number, fields: Record<string, unknown>, number: number, at: number, version: LedgerVersion): EpochMark & { at: number } {
  const bad = (problem: string) => ledgerBadLine(line, `an epoch line ${problem}`)
  const keys = version >= 4 ? [...KEYS, ...KEYS_4] : KEYS
  for (const key of Object.keys(fields)) if (!keys.includes(key)) throw bad(`has no key ${JSON.stringify(key)}${version < 4 && KEYS_4.includes(key) ? ` (it is written from ledger format 4; this ledger is format ${version})` : ''}`)
  if (fields.epoch !== number) throw bad(`is epoch ${JSON.stringify(fields.epoch)}, but ${number - 1} came before it`)
  if (!(REANCHOR_KINDS as readonly unknown[]).includes(fields.reanchor)) throw bad(`has reanchor ${JSON.stringify(fields.reanchor)} (expected ${REANCHOR_KINDS.join(' or ')})`)
  if (!wireFormatNames().includes(fields.format as never)) throw bad(`names format ${JSON.stringify(fields.format)}, not a registered wire format`)
  if (!isProvider(fields.provider)) throw bad(`names caching rules ${JSON.stringify(fields.provider)}, not a registered provider family`)
  if (!count(fields.summarised) || !count(fields.baseline)) throw bad('needs "summarised" and "baseline" as whole numbers of entries')
  const price = fields.predicted as Record<string, unknown> | null
  if (!isPrice(price)) throw bad(`needs "predicted" with ${PRICE_KEYS.join(', ')}`)
  if (version >= 4) {
    if (!Array.isArray(fields.offered) || fields.offered.length === 0 || !fields.offered.every(isPrice)) throw bad(`needs "offered" as a list of re-anchor prices, each with ${PRICE_KEYS.join(', ')}`)
    if (!count(fields.horizon)) throw bad('needs "horizon" as a whole number of requests')
  }
  if (!Array.isArray(fields.hidden) || fields.hidden.some((item) => typeof item?.section !== 'string' || typeof item?.sha256 !== 'string')) {
    throw bad('needs "hidden" as a list of { section, sha256 }')
  }
  const mark = { ...fields, predicted: price as unknown as ReanchorPrice, hidden: fields.hidden as HiddenSection[] } as unknown as EpochMark
  const canonical = JSON.stringify(epochFields(mark, version))
  if (canonical !== JSON.stringify(fields)) throw ledgerNotCanonical(line, 'an epoch line is not written the way the ledger writes marks (its keys in order, its figures as numbers)')
  return { ...mark, at }
}
