/**
 * A deployment's price table (`wire.prices` of an agent): what a million tokens cost, by model-name
 * prefix (the longest matching prefix wins), so every report's token figures read as money: written to
 * the cache, read from it, and uncached input, per request and summed per conversation. Pure and
 * Cordis-free; the currency is whatever the table is written in.
 * @module
 */
import type { Usage } from './usage.js'

/** What a million tokens cost for one model (family). */
export interface ModelPrice {
  /** Uncached input. */
  input: number
  /** Input read from the cache (default: `input`, no discount). */
  cacheRead?: number
  /** Input written to the cache with the default (5-minute) lifetime (default: `input`). */
  cacheWrite?: number
  /** Input written with a 1-hour lifetime (default: `cacheWrite`). */
  cacheWrite1h?: number
  /** Output (default: not priced). */
  output?: number
}

/** Prices by model-name prefix. */
export type PriceTable = Readonly<Record<string, ModelPrice>>

/** One request's (or a conversation's) cost, in the table's currency. */
export interface Cost {
  /** Input written to the cache. */
  written: number
  /** Input read from the cache. */
  read: number
  /** Input neither read nor written. */
  uncached: number
  /** Output, when the table prices it. */
  output: number
  total: number
}

const PER = 1_000_000

/** The row of `table` for `model` (the longest matching prefix), if any. */
export function priceOf(table: PriceTable, model: string): ModelPrice | undefined {
  let best: string | undefined
  for (const prefix of Object.keys(table)) if (model.startsWith(prefix) && (best === undefined || prefix.length > best.length)) best = prefix
  return best === undefined ? undefined : table[best]
}

/**
 * The cost of `usage` at `price`; `longWrites`: how many of the written tokens were written with a
 * 1-hour lifetime (the rest with the default). Figures the usage does not report count as 0.
 */
export function costOf(usage: Usage, price: ModelPrice, longWrites = 0): Cost {
  const read = usage.cachedReadTokens ?? 0
  const writes = usage.cacheWriteTokens ?? 0
  const uncached = Math.max(0, (usage.inputTokens ?? 0) - read - writes)
  const long = Math.min(longWrites, writes)
  const write5m = price.cacheWrite ?? price.input
  const cost = {
    written: ((writes - long) * write5m + long * (price.cacheWrite1h ?? write5m)) / PER,
    read: (read * (price.cacheRead ?? price.input)) / PER,
    uncached: (uncached * price.input) / PER,
    output: ((usage.outputTokens ?? 0) * (price.output ?? 0)) / PER,
  }
  return { ...cost, total: cost.written + cost.read + cost.uncached + cost.output }
}

/** The sum of costs (a conversation's). */
export function addCosts(a: Cost, b: Cost): Cost {
  return { written: a.written + b.written, read: a.read + b.read, uncached: a.uncached + b.uncached, output: a.output + b.output, total: a.total + b.total }
}

/** The first problem of a price table, or `undefined`: `key` names the row and figure. */
export function priceProblem(table: unknown): { key: string; reason: string } | undefined {
  if (typeof table !== 'object' || table === null || Array.isArray(table)) return { key: '', reason: 'expected an object of model-name prefix → prices' }
  for (const [prefix, row] of Object.entries(table)) {
    if (typeof row !== 'object' || row === null || Array.isArray(row)) return { key: prefix, reason: 'expected { input, cacheRead?, cacheWrite?, cacheWrite1h?, output? }' }
    for (const [figure, value] of Object.entries(row)) {
      if (!['input', 'cacheRead', 'cacheWrite', 'cacheWrite1h', 'output'].includes(figure)) return { key: `${prefix}.${figure}`, reason: 'unknown figure (known: input, cacheRead, cacheWrite, cacheWrite1h, output)' }
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return { key: `${prefix}.${figure}`, reason: `expected a price per million tokens (a number from 0), received ${JSON.stringify(value)}` }
    }
    if ((row as { input?: unknown }).input === undefined) return { key: `${prefix}.input`, reason: 'the price of uncached input is required' }
  }
  return undefined
}
