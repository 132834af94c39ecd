/**
 * Putting a checked ledger's entries back into a fresh agent. Replies and tool results go through
 * `agent.record()`, so they pass exactly the checks (and get exactly the shape) a live reply gets;
 * system-prompt versions, user input and runtime-context snapshots are appended as `step()` made them.
 * @module
 */
import { entry, type ContentPart, type ConversationEntry } from 'dsh-wire'
import type { Agent, RecordedMessage } from './agent.js'
import { ledgerInvalidEntry } from './errors.js'
import type { LedgerEpoch } from './ledger-epoch.js'
import type { LedgerLine } from './ledger-read.js'
import { recordedEntry } from './recorded-entry.js'
import { keepEntryParts } from './ledger-parts.js'
import { restoreEntryTools } from './ledger-tools.js'

/**
 * Appends `entries` to `agent`'s (empty) record, opening each epoch of `epochs` before its baseline
 * (R-EPOCH-4); throws `AGENT_LEDGER_INVALID_ENTRY` naming the line `record()` refused. A baseline's
 * replies and tool results were replies of an earlier epoch: they are put back as recorded, without
 * counting as new replies (as the compaction that carried them did not).
 */
export function replayEntries(agent: Agent, entries: readonly LedgerLine[], epochs: readonly LedgerEpoch[] = []): void {
  let next = 0
  let baselineEnd = -1
  entries.forEach((line, index) => {
    while (next < epochs.length && epochs[next].at === index) {
      const { line: _line, hash: _hash, at, ...mark } = epochs[next++]
      agent.restoreEpoch(mark)
      baselineEnd = at + mark.baseline
    }
    if (line.source === 'assistant' || line.source === 'tool') {
      const message = messageOf(line)
      const options = { ...(line.usage === undefined ? {} : { usage: line.usage }), ...(line.reply === undefined ? {} : { reply: line.reply }) }
      // The TTL plan's facts of the request the reply answered (R-LEDGER-10): the reply takes them back.
      if (line.request !== undefined) agent.restoreRequest(line.request)
      try {
        if (index < baselineEnd) agent.restoreEntry(recordedEntry(agent.id, message, options, 0).item)
        else agent.record(message, options)
      } catch (error) {
        throw ledgerInvalidEntry(line.line, error as Error)
      }
      // The declared tools the line recorded: a writer writes them again, and the agent's next change is measured from them.
      if (line.tools !== undefined) restoreEntryTools(agent, agent.ledgerItems(agent.ledgerLength - 1)[0] as ConversationEntry, line.tools, line.toolOwners)
    } else {
      // Read (and its user input's parts checked) by readLedger, through entry-shape.ts.
      // A tool-change note keeps the tools it added through an append path (R-TOOL-13).
      const added = line.toolAdditions === undefined ? {} : { toolAdditions: line.toolAdditions }
      const item = entry(line.parts === undefined
        ? { role: line.role as 'system' | 'user', content: line.content as string, ...(line.reanchor === undefined ? {} : { reanchor: line.reanchor }), ...added }
        : { role: 'user', content: line.content as string, parts: line.parts as ContentPart[], ...added }, line.source)
      // A version's sections (checked against its text by readLedger): a writer writes them again as they were.
      if (line.sections !== undefined) keepEntryParts(item, line.sections)
      if (line.tools !== undefined) restoreEntryTools(agent, item, line.tools, line.toolOwners)
      agent.restoreEntry(item)
    }
  })
}

/** A reply or tool result line as `record()` takes it. */
function messageOf(line: LedgerLine): RecordedMessage {
  const parts = line.parts === undefined ? {} : { parts: line.parts }
  return (line.source === 'assistant'
    ? { role: 'assistant', content: line.content, ...(line.tool_calls === undefined ? {} : { tool_calls: line.tool_calls }), ...parts }
    : { role: 'tool', content: line.content, tool_call_id: line.tool_call_id, ...(line.name === undefined ? {} : { name: line.name }), ...parts }) as RecordedMessage
}
