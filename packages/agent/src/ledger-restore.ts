/**
 * Putting a checked ledger's entries back into a fresh agent. Replies and tool results go through
 * `agent.record()`, so they pass exactly the checks (and get exactly the shape) a live reply gets;
 * system-prompt versions, user input and runtime-context snapshots are appended as `step()` made them.
 * @module
 */
import { entry, type ContentPart } from 'dsh-wire'
import type { Agent, RecordedMessage } from './agent.js'
import { ledgerInvalidEntry } from './errors.js'
import type { LedgerLine } from './ledger-read.js'

/** Appends `entries` to `agent`'s (empty) record; throws `AGENT_LEDGER_INVALID_ENTRY` naming the line `record()` refused. */
export function replayEntries(agent: Agent, entries: readonly LedgerLine[]): void {
  for (const line of entries) {
    if (line.source === 'assistant' || line.source === 'tool') {
      const parts = line.parts === undefined ? {} : { parts: line.parts }
      const message = (line.source === 'assistant'
        ? { role: 'assistant', content: line.content, ...(line.tool_calls === undefined ? {} : { tool_calls: line.tool_calls }), ...parts }
        : { role: 'tool', content: line.content, tool_call_id: line.tool_call_id, ...(line.name === undefined ? {} : { name: line.name }), ...parts }) as RecordedMessage
      try {
        agent.record(message, { ...(line.usage === undefined ? {} : { usage: line.usage }), ...(line.reply === undefined ? {} : { reply: line.reply }) })
      } catch (error) {
        throw ledgerInvalidEntry(line.line, error as Error)
      }
    } else {
      // Read (and its user input's parts checked) by readLedger, through entry-shape.ts.
      agent.restoreEntry(entry(line.parts === undefined
        ? { role: line.role as 'system' | 'user', content: line.content as string }
        : { role: 'user', content: line.content as string, parts: line.parts as ContentPart[] }, line.source))
    }
  }
}
