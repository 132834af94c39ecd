/**
 * The ledger's line format (R-LEDGER): an agent's conversation record as JSON Lines. Line 1 is a
 * header with what a restore needs (format version, agent id, model, policy, provider, cwd, preset,
 * parent); each further line is one conversation entry with the prompt version it was sent under.
 * Every line is the canonical JSON of its fields: `JSON.stringify` of them (no whitespace) in the
 * ledger's fixed field order, `hash` last, recorded values (tool calls, usage) with their own key
 * order, because the request sends them in that order. `hash` is the SHA-256 (hex) of the previous
 * line's hash followed by the JSON of the line's other fields; the header's hash (previous hash: the
 * empty string) starts the chain. The same record always exports the same bytes. Since format version 2 a
 * system-prompt line also records its parts (`sections`: each section's name, owner, layer, byte range
 * and hashes, `ledger-parts.ts`); since version 3 a line may record the tools the requests declare from
 * it on (`tools`, where the declaration changes: `ledger-tools.ts`). Ledgers of versions 1 and 2 are
 * still read, and an agent restored from one goes on writing its version. An agent created with `wire`
 * options has them in its header (`wire`), and with the TTL plan or a price table each reply line keeps
 * the facts of the request it answers (`request`, `ledger-request.ts`): R-LEDGER-10. Pure and Cordis-free.
 * @module
 */
import { createHash } from 'node:crypto'
import type { Agent } from './agent.js'
import type { SubagentStart } from './subagent-start.js'
import { entryParts, type PromptPart } from './ledger-parts.js'
import { entryToolOwners, entryTools } from './ledger-tools.js'
import type { ContentPart, ConversationEntry, EntrySource, PromptChangePolicy, ReplyFacts, ReplyPart, ToolCall, Usage, WireTool } from 'dsh-wire'
import type { EpochMark, ReanchorPrice } from './epoch.js'
import { canonicalRequest, entryRequest, type RequestFacts } from './ledger-request.js'
import { canonicalWire, type AgentWireOptions } from './wire-options.js'
import { isEpochMark, type LedgerItem } from './epoch-log.js'

/** The `format` of a ledger header. */
export const LEDGER_FORMAT = 'dsh-ledger'

/** The format version this package writes (it reads this one and {@link LEDGER_VERSIONS}). */
export const LEDGER_VERSION = 4

/**
 * The format versions this package reads: 1 (no parts), 2 (system-prompt lines record their parts), 3
 * (lines record the declared tools where they change), 4 (an epoch's line records both re-anchor offers
 * and the horizon they were compared over).
 */
export const LEDGER_VERSIONS: readonly LedgerVersion[] = [1, 2, 3, 4]

/** A ledger format version this package reads. */
export type LedgerVersion = 1 | 2 | 3 | 4

/** Line 1 of a ledger: the agent's facts, as `agents.create()` takes them. */
export interface LedgerHeader {
  format: typeof LEDGER_FORMAT
  version: LedgerVersion
  agent: string
  model: string
  promptChange: PromptChangePolicy
  provider?: string
  cwd?: string
  preset?: string
  /** The parent agent's id (a sub-agent is restored under a live agent of that id). */
  parent?: string
  /** How the sub-agent started (`parent`, `live`, `fresh`): its record already holds what it copied, so restore copies nothing. */
  start?: SubagentStart
  /** The agent's routing key, when it is not its id (a sub-agent's, derived from its parent's). */
  routingKey?: string
  /** The agent's `wire` options (R-LEDGER-10): a restore creates the agent with them. */
  wire?: AgentWireOptions
}

/** One entry line's fields (without `hash`). */
export interface LedgerEntryFields {
  role: ConversationEntry['role']
  source: EntrySource
  content: string | null
  /** A compaction's re-anchor: the text sent in place of this system-prompt version. */
  reanchor?: string
  tool_calls?: ToolCall[]
  tool_call_id?: string
  name?: string
  /** A reply's parts (reasoning state, images, their order) or a tool result's (images, documents), as recorded. */
  parts?: ReplyPart[] | ContentPart[]
  /** A tool-change note's tools added through the format's append path (R-TOOL-13), as recorded. */
  toolAdditions?: WireTool[]
  usage?: Usage
  /** A system-prompt version's parts (format version 2; absent when the version was recorded without them). */
  sections?: PromptPart[]
  /** A reply's id and the provider's cache diagnosis (the diagnostics bridge), as recorded. */
  reply?: ReplyFacts
  /** The tool schemas the requests declare from this line on, where the declaration changed (format version 3). */
  tools?: WireTool[]
  /** The plugin behind each of `tools` (`null`: none known), from format version 4 (R-LEDGER-11). */
  toolOwners?: (string | null)[]
  /** With the TTL plan or a price table: the time and breakpoints of the request a reply answers (R-LEDGER-10). */
  request?: RequestFacts
  /** How many system-prompt entries the record holds up to and including this one (0 before the first). */
  promptVersion: number
}

/**
 * The hash of a line whose fields (without `hash`, in the order written) are `fields`, chained to
 * `previous` (`''` for the header): SHA-256 hex of `previous` followed by `JSON.stringify(fields)`.
 */
export function lineHash(previous: string, fields: object): string {
  return createHash('sha256').update(previous).update(JSON.stringify(fields)).digest('hex')
}

/** A line as written: its fields in the order given, then `hash`, as `JSON.stringify` writes them. */
export function writeLine(fields: object, hash: string): string {
  return JSON.stringify({ ...fields, hash })
}

const restoredVersions = new WeakMap<Agent, LedgerVersion>()

/** @internal Marks an agent restored from a ledger of `version`: its ledger keeps that version (and its form). */
export function keepLedgerVersion(agent: Agent, version: LedgerVersion): void {
  restoredVersions.set(agent, version)
}

/** The format version of `agent`'s ledger: the one it was restored from, else {@link LEDGER_VERSION}. */
export function ledgerVersionOf(agent: Agent): LedgerVersion {
  return restoredVersions.get(agent) ?? LEDGER_VERSION
}

/** The header of `agent`'s ledger. */
export function headerOf(agent: Agent): LedgerHeader {
  return canonicalHeader({
    format: LEDGER_FORMAT, version: ledgerVersionOf(agent), agent: agent.id, model: agent.model, promptChange: agent.promptChange,
    provider: agent.provider, cwd: agent.cwd, preset: agent.preset, parent: agent.parent?.id, start: agent.start,
    routingKey: agent.routingKey === agent.id ? undefined : agent.routingKey, wire: agent.wire,
  })
}

/** A header's fields in the ledger's fixed order, absent optional facts left out (the one form a header line has). */
export function canonicalHeader(facts: LedgerHeader): LedgerHeader {
  const header: LedgerHeader = { format: facts.format, version: facts.version, agent: facts.agent, model: facts.model, promptChange: facts.promptChange }
  if (facts.provider !== undefined) header.provider = facts.provider
  if (facts.cwd !== undefined) header.cwd = facts.cwd
  if (facts.preset !== undefined) header.preset = facts.preset
  if (facts.parent !== undefined) header.parent = facts.parent
  if (facts.start !== undefined) header.start = facts.start
  if (facts.routingKey !== undefined) header.routingKey = facts.routingKey
  if (facts.wire !== undefined) header.wire = canonicalWire(facts.wire)
  return header
}

/**
 * The line fields of one conversation entry sent under prompt version `promptVersion`; `sections`, a
 * system-prompt version's parts (written from format version 2 when they are known); `tools`, the
 * declaration that changed at this entry (written from format version 3).
 */
export function entryFields(
  item: ConversationEntry, promptVersion: number, sections?: readonly PromptPart[], tools?: readonly WireTool[], toolOwners?: readonly (string | null)[],
): LedgerEntryFields {
  const fields: LedgerEntryFields = { role: item.role, source: item.source, promptVersion, content: item.content }
  if (item.role === 'system' && item.reanchor !== undefined) fields.reanchor = item.reanchor
  if (sections !== undefined) fields.sections = sections as PromptPart[]
  if (item.role === 'assistant' && item.tool_calls !== undefined) fields.tool_calls = item.tool_calls
  if (item.role === 'tool') {
    fields.tool_call_id = item.tool_call_id
    if (item.name !== undefined) fields.name = item.name
  }
  if (item.role !== 'system' && item.parts !== undefined) fields.parts = item.parts
  if (item.role === 'user' && item.toolAdditions !== undefined) fields.toolAdditions = item.toolAdditions
  if (item.usage !== undefined) fields.usage = item.usage
  if (item.reply !== undefined) fields.reply = item.reply
  if (tools !== undefined) fields.tools = tools as WireTool[]
  if (tools !== undefined && toolOwners !== undefined) fields.toolOwners = toolOwners as (string | null)[]
  const request = entryRequest(item)
  if (request !== undefined) fields.request = canonicalRequest(request)
  return fields
}

/**
 * The line fields of an epoch's mark (R-EPOCH-4), in the ledger's fixed order: the epoch, its
 * re-anchor, the format and rules it was priced with, what it summarised and how many baseline entry
 * lines follow, the chosen re-anchor's predicted price, the sections it took out.
 */
export function epochFields(mark: EpochMark, version: LedgerVersion = LEDGER_VERSION): EpochMark {
  return {
    epoch: mark.epoch, reanchor: mark.reanchor, format: mark.format, provider: mark.provider, summarised: mark.summarised, baseline: mark.baseline,
    predicted: priceFields(mark.predicted),
    hidden: mark.hidden.map((item) => ({ section: item.section, sha256: item.sha256 })),
    // Format 4: both offers, as planned, and the horizon they were compared over.
    ...(version >= 4 ? { offered: (mark.offered ?? [mark.predicted]).map(priceFields), horizon: mark.horizon ?? 0 } : {}),
  }
}

function priceFields(p: ReanchorPrice): ReanchorPrice {
  return {
    kind: p.kind, available: p.available, requestTokens: p.requestTokens, cachedTokens: p.cachedTokens, writtenTokens: p.writtenTokens,
    costNow: p.costNow, costPerRequest: p.costPerRequest, total: p.total,
  }
}

/**
 * Writes ledger lines incrementally: the header, then each entry as it is given. Keeps the chain's
 * head and the prompt version, so appending n entries hashes n lines (never the whole record again).
 */
export class LedgerChain {
  /** The hash of the last line written (`''` before the header). */
  head = ''
  /** The prompt version of the last entry written. */
  promptVersion = 0
  /** How many lines have been written. */
  lines = 0
  /** The format version of the header written (parts are written from version 2, tools from version 3). */
  version: LedgerVersion = LEDGER_VERSION

  /** The header line. */
  header(header: LedgerHeader): string {
    this.version = header.version
    return this.push(header)
  }

  /** The line of the next entry, or of an epoch's mark. */
  entry(item: LedgerItem): string {
    if (isEpochMark(item)) return this.push(epochFields(item, this.version))
    const tools = this.version >= 3 ? entryTools(item) : undefined
    const owners = this.version >= 4 ? entryToolOwners(item) : undefined
    if (item.source !== 'system-prompt') return this.push(entryFields(item, this.promptVersion, undefined, tools, owners))
    this.promptVersion++
    return this.push(entryFields(item, this.promptVersion, this.version >= 2 ? entryParts(item) : undefined, tools, owners))
  }

  private push(fields: object): string {
    this.head = lineHash(this.head, fields)
    this.lines++
    return writeLine(fields, this.head)
  }
}

/** `agent`'s ledger as lines (without line breaks): the header, then one line per conversation entry (every epoch's) and per epoch mark. */
export function ledgerLines(agent: Agent): string[] {
  const chain = new LedgerChain()
  return [chain.header(headerOf(agent)), ...agent.ledgerItems().map((item) => chain.entry(item))]
}

/** `agent`'s ledger as JSON Lines text: each line followed by a line break. Deterministic. */
export function exportLedger(agent: Agent): string {
  return ledgerLines(agent).map((line) => line + '\n').join('')
}
