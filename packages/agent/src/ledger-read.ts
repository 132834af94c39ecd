/**
 * Reading a ledger back: every line parsed, its hash checked against the chain, its form and fields
 * checked, before anything is restored. The first problem is thrown as a coded error naming its line.
 * Pure and Cordis-free (the CLI's `history` reads ledgers with it, without an agent).
 * @module
 */
import { entry, type ConversationEntry, type EntrySource } from 'dsh-wire'
import { EntryShapeError, fail, replyFactsShape, replyShape, toolAdditionsShape, toolResultShape, usageShape, userInputShape } from './entry-shape.js'
import { SUBAGENT_STARTS, type SubagentStart } from './subagent-start.js'
import {
  ledgerBadHeader, ledgerBadLine, ledgerBlankLine, ledgerCutShort, ledgerHashMismatch, ledgerInvalidEntry, ledgerMissingLines, ledgerNotCanonical,
  ledgerNotJson,
} from './errors.js'
import { epochMarkOf, type LedgerEpoch } from './ledger-epoch.js'
import {
  canonicalHeader, entryFields, LEDGER_FORMAT, LEDGER_VERSIONS, lineHash, writeLine, type LedgerEntryFields, type LedgerHeader, type LedgerVersion,
} from './ledger-format.js'
import { checkSections } from './ledger-parts-read.js'
import { checkToolOwners, checkTools } from './ledger-tools.js'
import { keepEntryRequest, requestFactsShape } from './ledger-request.js'
import { checkedWire } from './wire-options.js'

/** A ledger as text (JSON Lines, each line ending with a line break) or as its lines (a store's rows). */
export type LedgerInput = string | readonly string[]

/** Options of {@link readLedger} and `agents.restore()`. */
export interface ReadLedgerOptions {
  /**
   * The hash of the last line as the writer saw it (`LedgerWriter.head`, kept elsewhere by the
   * harness). The chain proves that each line follows the one before it, not that none came after:
   * with `head`, a ledger whose last lines were lost is refused (`AGENT_LEDGER_MISSING_LINES`).
   * A ledger that goes on past the line with this hash is accepted.
   */
  head?: string
}

/** One entry line as read: its fields, its line number (from 2) and its hash. */
export type LedgerLine = LedgerEntryFields & { readonly line: number; readonly hash: string }

/** A ledger that passed every check. */
export interface ParsedLedger {
  header: LedgerHeader
  /** The entry lines of every epoch, in order (an epoch's baseline lines after its mark). */
  /**
   * Whether the ledger's format records the parts of each system-prompt version (format version 2;
   * `false` for a ledger of version 1, whose versions are text only).
   */
  parts: boolean
  /**
   * Whether the ledger's format records the tools the requests declared (format version 3; `false` for
   * versions 1 and 2, which carry no tools). The last line's `tools` (`declaredTools(entries)`) is what
   * the last request declared.
   */
  tools: boolean
  entries: LedgerLine[]
  /** The epoch marks, each with the index in `entries` of the first entry of its baseline. */
  epochs: LedgerEpoch[]
  /** The hash of the last line. */
  head: string
}

const HEADER_KEYS = new Set(['format', 'version', 'agent', 'model', 'promptChange', 'provider', 'cwd', 'preset', 'parent', 'start', 'routingKey', 'wire', 'hash'])
const OPTIONAL_HEADER_KEYS = ['provider', 'cwd', 'preset', 'parent', 'routingKey'] as const
const ENTRY_KEYS: Record<string, ReadonlySet<string>> = {
  'system-prompt': new Set(['role', 'source', 'content', 'reanchor', 'promptVersion', 'hash']),
  user: new Set(['role', 'source', 'content', 'parts', 'toolAdditions', 'promptVersion', 'hash']),
  'runtime-context': new Set(['role', 'source', 'content', 'promptVersion', 'hash']),
  assistant: new Set(['role', 'source', 'content', 'tool_calls', 'parts', 'usage', 'reply', 'request', 'promptVersion', 'hash']),
  // `usage` is let through so that record() refuses it with its own words (usage belongs to a reply).
  tool: new Set(['role', 'source', 'content', 'tool_call_id', 'name', 'parts', 'usage', 'promptVersion', 'hash']),
}
/** A system-prompt line of format version 2 may record its parts. */
const SYSTEM_KEYS_V2: ReadonlySet<string> = new Set([...ENTRY_KEYS['system-prompt'], 'sections'])
const ROLE_OF: Record<string, string> = {
  'system-prompt': 'system', user: 'user', 'runtime-context': 'user', assistant: 'assistant', tool: 'tool',
}

/** The lines of `input`, and the number of a last line that has no line break after it. */
function splitLines(input: LedgerInput): { lines: readonly string[]; cutShort?: number } {
  if (typeof input !== 'string') return { lines: input }
  if (input === '') return { lines: [] }
  const lines = input.split('\n')
  if (lines[lines.length - 1] === '') return { lines: lines.slice(0, -1) }
  return { lines, cutShort: lines.length }
}

/**
 * Parses and checks a whole ledger. Throws the first problem as a coded error naming its line:
 * `AGENT_LEDGER_BAD_HEADER`, `AGENT_LEDGER_NOT_JSON`, `AGENT_LEDGER_CUT_SHORT`,
 * `AGENT_LEDGER_HASH_MISMATCH`, `AGENT_LEDGER_BAD_LINE`, `AGENT_LEDGER_MISSING_LINES`.
 */
export function readLedger(input: LedgerInput, options: ReadLedgerOptions = {}): ParsedLedger {
  const { lines, cutShort } = splitLines(input)
  if (!lines.length) throw ledgerBadHeader('the ledger is empty')
  let previous = ''
  let header: LedgerHeader | undefined
  const entries: LedgerLine[] = []
  const epochs: LedgerEpoch[] = []
  const hashes: string[] = []
  let promptVersion = 0
  lines.forEach((text, index) => {
    const line = index + 1
    if (line === cutShort) throw ledgerCutShort(line)
    if (text === '') throw ledgerBlankLine(line, line === lines.length)
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (error) {
      if (line === lines.length) throw ledgerCutShort(line)
      throw ledgerNotJson(line, (error as Error).message)
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      const problem = `expected a JSON object, found ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}`
      throw line === 1 ? ledgerBadHeader(problem) : ledgerBadLine(line, problem)
    }
    const { hash, ...fields } = value as Record<string, unknown>
    if (line === 1 && fields.format !== LEDGER_FORMAT) {
      throw ledgerBadHeader(`expected "format": "${LEDGER_FORMAT}" on the first line, found ${fields.format === undefined ? 'no format (was the header removed?)' : JSON.stringify(fields.format)}`)
    }
    if (typeof hash !== 'string') throw ledgerBadLine(line, 'the line has no "hash"')
    if (lineHash(previous, fields) !== hash) throw ledgerHashMismatch(line)
    if (writeLine(fields, hash) !== text) {
      throw ledgerBadLine(line, 'the line is not written the way the ledger writes lines (JSON without whitespace, "hash" last)')
    }
    previous = hash
    hashes.push(hash)
    if (line === 1) {
      header = checkHeader(fields)
      checkCanonical(line, fields, canonicalHeader(header))
      return
    }
    if (!('source' in fields) && 'epoch' in fields) {
      epochs.push({ ...epochMarkOf(line, fields, epochs.length + 1, entries.length, header!.version), line, hash })
      return
    }
    if (fields.source === 'system-prompt') promptVersion++
    const checked = checkEntry(line, fields, promptVersion, header!.version)
    const sections = checked.sections === undefined ? undefined : checkSections(line, checked.sections, checked.content as string)
    const tools = checked.tools === undefined ? undefined : checkTools(line, checked.tools)
    const owners = checked.toolOwners === undefined ? undefined : checkToolOwners(line, checked.toolOwners, tools)
    const item = recordedEntry(line, checked)
    if (checked.request !== undefined) keepEntryRequest(item, shaped(line, () => requestFactsShape(checked.request)))
    const canonical = entryFields(item, promptVersion, sections, tools, owners)
    checkCanonical(line, fields, canonical)
    entries.push({ ...canonical, line, hash })
  })
  const last = epochs[epochs.length - 1]
  if (last !== undefined && entries.length - last.at < last.baseline) {
    throw ledgerBadLine(last.line, `the epoch starts with ${last.baseline} baseline ${last.baseline === 1 ? 'entry' : 'entries'}, but ${entries.length - last.at} ${entries.length - last.at === 1 ? 'follows' : 'follow'} (were lines lost?)`)
  }
  if (options.head !== undefined && !hashes.includes(options.head)) {
    throw ledgerMissingLines(lines.length + 1, options.head)
  }
  return { header: header!, parts: header!.version >= 2, tools: header!.version >= 3, entries, epochs, head: previous }
}

function checkHeader(fields: Record<string, unknown>): LedgerHeader {
  // The version first: a later format may have keys this one does not know.
  if (!LEDGER_VERSIONS.includes(fields.version as LedgerVersion)) {
    throw ledgerBadHeader(`version ${JSON.stringify(fields.version)} is not one this version of dsh-agent reads (${LEDGER_VERSIONS.join(', ')})`)
  }
  for (const key of Object.keys(fields)) if (!HEADER_KEYS.has(key)) throw ledgerBadHeader(`unknown key ${JSON.stringify(key)}`)
  for (const key of ['agent', 'model'] as const) {
    if (typeof fields[key] !== 'string' || !fields[key]) throw ledgerBadHeader(`"${key}" must be a non-empty string`)
  }
  if (fields.promptChange !== 'append' && fields.promptChange !== 'replace') throw ledgerBadHeader('"promptChange" must be "append" or "replace"')
  for (const key of OPTIONAL_HEADER_KEYS) {
    if (fields[key] !== undefined && typeof fields[key] !== 'string') throw ledgerBadHeader(`"${key}" must be a string when given`)
  }
  if (fields.start !== undefined && (fields.parent === undefined || !SUBAGENT_STARTS.includes(fields.start as SubagentStart))) {
    throw ledgerBadHeader(`"start" must be one of ${SUBAGENT_STARTS.join(', ')}, and only with "parent"`)
  }
  if (fields.wire !== undefined) {
    try {
      fields.wire = checkedWire(fields.agent as string, fields.wire)
    } catch (error) {
      const { key, reason } = (error as { details?: { key?: string; reason?: string } }).details ?? {}
      if (reason === undefined) throw error
      throw ledgerBadHeader(`"wire${key ? `.${key}` : ''}": ${reason}`)
    }
  }
  return fields as unknown as LedgerHeader
}

/** `read()`'s value; a shape it refuses is `AGENT_LEDGER_BAD_LINE` naming `line`. */
function shaped<T>(line: number, read: () => T): T {
  try {
    return read()
  } catch (error) {
    if (error instanceof EntryShapeError) throw ledgerBadLine(line, error.problem)
    throw error
  }
}

function checkEntry(line: number, fields: Record<string, unknown>, promptVersion: number, version: LedgerVersion): LedgerEntryFields {
  const { source, role } = fields
  const known = typeof source === 'string' && Object.hasOwn(ENTRY_KEYS, source) ? (source === 'system-prompt' && version >= 2 ? SYSTEM_KEYS_V2 : ENTRY_KEYS[source]) : undefined
  const allowed = known && version >= 3 ? { has: (key: string) => key === 'tools' || (version >= 4 && key === 'toolOwners') || known.has(key) } : known
  if (!allowed) throw ledgerBadLine(line, `unknown source ${JSON.stringify(source)} (expected one of ${Object.keys(ENTRY_KEYS).join(', ')})`)
  if (role !== ROLE_OF[source as string]) throw ledgerBadLine(line, `a ${source} entry has role "${ROLE_OF[source as string]}", found ${JSON.stringify(role)}`)
  for (const key of Object.keys(fields)) if (!allowed.has(key)) throw ledgerBadLine(line, `a ${source} entry has no key ${JSON.stringify(key)}`)
  if (role !== 'assistant' && role !== 'tool' && typeof fields.content !== 'string') throw ledgerBadLine(line, `a ${source} entry's content must be a string`)
  if (fields.promptVersion !== promptVersion) {
    throw ledgerBadLine(line, `promptVersion is ${JSON.stringify(fields.promptVersion)}, but the lines before it hold ${promptVersion} system-prompt ${promptVersion === 1 ? 'version' : 'versions'}`)
  }
  return fields as unknown as LedgerEntryFields
}

/**
 * The entry `record()` (or a step) would hold for a checked line: replies and tool results read through
 * `entry-shape.ts`, as `record()` reads them, so what this accepts `agents.restore()` accepts.
 */
function recordedEntry(line: number, fields: LedgerEntryFields): ConversationEntry {
  try {
    if (fields.source === 'assistant') {
      return entry(replyShape(fields), 'assistant', fields.usage === undefined ? undefined : usageShape(fields.usage), fields.reply === undefined ? undefined : replyFactsShape(fields.reply))
    }
    if (fields.source === 'tool') {
      if (fields.usage !== undefined) fail('usage belongs to an assistant reply, not a tool result')
      return entry(toolResultShape(fields), 'tool')
    }
    if (fields.source === 'user') return entry(fields.toolAdditions === undefined ? userInputShape(fields) : { ...userInputShape(fields), toolAdditions: toolAdditionsShape(fields.toolAdditions) }, 'user')
  } catch (error) {
    if (error instanceof EntryShapeError) throw ledgerInvalidEntry(line, error)
    throw error
  }
  if (fields.source === 'system-prompt' && fields.reanchor !== undefined) {
    if (typeof fields.reanchor !== 'string') throw ledgerBadLine(line, 'a system-prompt entry\'s reanchor must be a string')
    return entry({ role: 'system', content: fields.content as string, reanchor: fields.reanchor }, 'system-prompt')
  }
  return entry({ role: fields.role as 'system' | 'user', content: fields.content as string }, fields.source as EntrySource)
}

/**
 * Refuses a line whose fields are not exactly the canonical fields (in order, recorded values as the
 * record keeps them): a writer chaining from the restored record would hash those, not the line's.
 */
function checkCanonical(line: number, fields: Record<string, unknown>, canonical: object): void {
  const written = JSON.stringify(fields)
  if (written === JSON.stringify(canonical)) return
  const have = Object.keys(fields)
  const want = Object.keys(canonical)
  const problem = have.join(',') !== want.join(',')
    ? `its keys are ${have.join(', ')}; the ledger writes ${want.join(', ')}`
    : `a value is not written as the record keeps it (${firstDifference(fields, canonical as Record<string, unknown>)})`
  throw ledgerNotCanonical(line, problem)
}

function firstDifference(fields: Record<string, unknown>, canonical: Record<string, unknown>): string {
  for (const key of Object.keys(canonical)) {
    const want = JSON.stringify(canonical[key])
    if (JSON.stringify(fields[key]) !== want) return `"${key}" should be ${want.length > 120 ? want.slice(0, 120) + '…' : want}`
  }
  return 'the order of its keys'
}
