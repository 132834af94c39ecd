/**
 * The tools a ledger records (format version 3, R-LEDGER-9): what the requests declared, written on a
 * line only when it changes. A line's `tools` is the whole list of tool schemas (as the request sent
 * them, in order) that every request from that line on declared, until the next line with `tools`. It
 * goes on the first entry a step adds; a step that adds no entry (a request right after tool results)
 * leaves it for the next entry recorded (the reply to that request). An agent that never declared a
 * tool writes none. So the ledger alone says which tools the last request declared, and a store can
 * keep each schema once (dsh-store-postgres).
 *
 * The tools of an entry are kept beside the record (a `WeakMap` keyed by the frozen entry), as its
 * parts are (`ledger-parts.ts`). Cordis-free.
 * @module
 */
import type { ConversationEntry, WireTool } from 'dsh-wire'
import { ledgerBadLine } from './errors.js'
import type { RestoredDeclaration } from './tool-changes.js'
import { removedIn } from './tool-change-note.js'

const toolsOfEntry = new WeakMap<ConversationEntry, readonly WireTool[]>()
const ownersOfEntry = new WeakMap<ConversationEntry, readonly (string | null)[]>()

/** The tool list recorded with `entry` (the declaration that changed there), or `undefined`. */
export function entryTools(entry: ConversationEntry): readonly WireTool[] | undefined {
  return toolsOfEntry.get(entry)
}

/** The plugin behind each tool of `entryTools(entry)`, index for index (`null`: none known), or `undefined` (format 4, R-LEDGER-11). */
export function entryToolOwners(entry: ConversationEntry): readonly (string | null)[] | undefined {
  return ownersOfEntry.get(entry)
}

/** What one agent's ledger has declared so far, and a declaration still waiting for an entry to carry it. */
interface ToolsLedgered {
  /** The JSON of the last list the ledger records (`[]` before any). */
  json: string
  /** The list the latest request declared, when no entry carries it yet, and the plugin behind each of its tools. */
  pending?: readonly WireTool[]
  pendingOwners?: readonly (string | null)[]
  /** The list object the latest request declared (an unchanged declaration is the same object: no JSON to compare). */
  seen?: readonly WireTool[]
}

/** By agent (keyed as an object, so this file names no agent type). */
const ledgered = new WeakMap<object, ToolsLedgered>()

function stateOf(agent: object): ToolsLedgered {
  let state = ledgered.get(agent)
  if (!state) ledgered.set(agent, state = { json: '[]' })
  return state
}

/**
 * A step's request declared `tools` and added `added` to the record: the first added entry carries the
 * list when it changed, with the plugin behind each tool (`owners`: the agent's tool declarations, as the
 * step's tool plan left them).
 */
export function ledgerToolsSent(agent: object, tools: readonly WireTool[], added: readonly ConversationEntry[], owners: { ownerOf(name: string): string | null }): void {
  const state = stateOf(agent)
  if (tools === state.seen) {
    if (state.pending && added.length) carry(state, added[0])
    return
  }
  let json: string
  try {
    json = JSON.stringify(tools)
  } catch {
    // A list with no JSON (a throwing `toJSON`): its request body fails to serialise, and the caller hears it from there.
    return
  }
  state.seen = tools
  if (json === state.json) {
    state.pending = undefined
    return
  }
  state.pending = Object.freeze([...tools])
  state.pendingOwners = Object.freeze(tools.map((tool) => owners.ownerOf(tool.name)))
  if (added.length) carry(state, added[0])
}

/** `entry` was recorded (a reply, a tool result): it carries a declaration still waiting. */
export function ledgerToolsRecorded(agent: object, entry: ConversationEntry): void {
  const state = ledgered.get(agent)
  if (state?.pending) carry(state, entry)
}

/** @internal A restore put `entry` back with the tools its line recorded (and their owners, from format 4). */
export function restoreEntryTools(agent: object, entry: ConversationEntry, tools: readonly WireTool[], owners?: readonly (string | null)[]): void {
  toolsOfEntry.set(entry, tools)
  if (owners !== undefined) ownersOfEntry.set(entry, owners)
  stateOf(agent).json = JSON.stringify(tools)
}

function carry(state: ToolsLedgered, entry: ConversationEntry): void {
  toolsOfEntry.set(entry, state.pending!)
  if (state.pendingOwners !== undefined) ownersOfEntry.set(entry, state.pendingOwners)
  state.json = JSON.stringify(state.pending)
  state.pending = undefined
  state.pendingOwners = undefined
}

/** The checked, frozen copy of a line's `toolOwners`: one plugin name or `null` per tool of its `tools` (`AGENT_LEDGER_BAD_LINE`). */
export function checkToolOwners(line: number, value: unknown, tools: readonly WireTool[] | undefined): (string | null)[] {
  if (tools === undefined) throw ledgerBadLine(line, 'toolOwners: a line has them only beside its tools')
  if (!Array.isArray(value) || value.length !== tools.length || value.some((owner) => owner !== null && (typeof owner !== 'string' || !owner))) {
    throw ledgerBadLine(line, `toolOwners: must be one plugin name (or null) per tool, ${tools.length} in all`)
  }
  return Object.freeze([...value]) as (string | null)[]
}

/** The checked, frozen copy of a line's `tools` (`AGENT_LEDGER_BAD_LINE` naming the line and the tool). */
export function checkTools(line: number, value: unknown): WireTool[] {
  const problem = (text: string): never => { throw ledgerBadLine(line, `tools: ${text}`) }
  if (!Array.isArray(value)) problem('must be an array of tool schemas ({ name, description?, parameters? })')
  const names = new Set<string>()
  return Object.freeze((value as unknown[]).map((tool, index) => {
    const at = `tool ${index + 1}`
    if (typeof tool !== 'object' || tool === null || Array.isArray(tool)) problem(`${at} must be an object`)
    const { name, description, parameters } = tool as Record<string, unknown>
    if (typeof name !== 'string' || !name) problem(`${at}: "name" must be a non-empty string`)
    if (names.has(name as string)) problem(`${at}: the tool "${name}" is declared twice`)
    names.add(name as string)
    if (description !== undefined && typeof description !== 'string') problem(`${at} ("${name}"): "description" must be a string when given`)
    if (parameters !== undefined && (typeof parameters !== 'object' || parameters === null || Array.isArray(parameters))) {
      problem(`${at} ("${name}"): "parameters" must be an object (a JSON Schema) when given`)
    }
    return tool as WireTool
  })) as WireTool[]
}

/** The tools the last request recorded in `lines` declared: the last `tools` a line carries (`[]` when none does). */
export function declaredTools(lines: readonly { tools?: readonly WireTool[] }[]): readonly WireTool[] {
  for (let i = lines.length - 1; i >= 0; i--) if (lines[i].tools !== undefined) return lines[i].tools!
  return []
}

/**
 * What a restored agent's tool declarations start from (R-LEDGER-9): the last `tools` the ledger's lines
 * recorded, the tools the notes since the last epoch appended (a new definition in place of the old), and
 * the removals those notes told; `reset` when an epoch opened after the last recorded declaration.
 * `undefined` when no line records tools (an older format, or an agent that declared none).
 */
export function restoredDeclaration(lines: readonly LedgerToolsLine[], epochs: readonly { at: number }[]): RestoredDeclaration | undefined {
  let last = -1
  for (let i = lines.length - 1; i >= 0 && last < 0; i--) if (lines[i].tools !== undefined) last = i
  if (last < 0) return undefined
  const epochAt = epochs.reduce((at, epoch) => Math.max(at, epoch.at), 0)
  const reset = epochAt > last
  const appended = new Map<string, WireTool>()
  const told: string[] = []
  if (!reset) {
    for (const line of lines.slice(epochAt)) {
      if (line.source !== 'user') continue
      for (const tool of line.toolAdditions ?? []) appended.set(tool.name, tool)
      if (typeof line.content === 'string') told.push(...removedIn(line.content))
    }
  }
  // A request whose append path was closed declared the appended tools in its list: they are declared now.
  const declared = lines[last].tools!
  for (const tool of declared) appended.delete(tool.name)
  const owners = lines[last].toolOwners
  return { declared, appended: [...appended.values()], told, reset, ...(owners === undefined ? {} : { owners: new Map(declared.map((tool, i) => [tool.name, owners[i]])) }) }
}

/** The fields of a ledger line `restoredDeclaration()` reads. */
export interface LedgerToolsLine {
  readonly source: string
  readonly content?: unknown
  readonly tools?: readonly WireTool[]
  readonly toolOwners?: readonly (string | null)[]
  readonly toolAdditions?: readonly WireTool[]
}
