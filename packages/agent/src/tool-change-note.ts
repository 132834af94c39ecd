/**
 * The note appended when an agent's tools change without a new tools list (`tool-changes.ts`): its
 * first line (`TOOL_CHANGE_NOTE_MARKER`), one line per change the model is told of, and the reading
 * back of a restored note's removals (`ledger-tools.ts`). The words the model reads live here only.
 * @module
 */
import type { WireTool } from 'dsh-wire'

/** The first line of the appended note that tells the model what changed in its tools. */
export const TOOL_CHANGE_NOTE_MARKER = '[tools changed: the list of tools you were given is unchanged; read this note for what changed]'

/** The note for `lines` (none without a line). */
export function toolChangeNote(lines: readonly string[]): string | undefined {
  return lines.length ? `${TOOL_CHANGE_NOTE_MARKER}\n${lines.join('\n')}` : undefined
}

/** The note's line for a tool that went inert (`removedIn()` reads it back from a restored note). */
export function removalLine(tool: string, from: string | null): string {
  return `- "${tool}"${from ? ` (from ${from})` : ''} is no longer available: it stays in your list, but a call to it returns an error. Do not call it.`
}

/** The note's line for an appended tool whose definition changed (declared through the append path again). */
export function appendedChangeLine(tool: string): string {
  return `- "${tool}" has changed: its new definition applies from now on.`
}

/** The note's line for a tool whose new definition waits for the next epoch (the model is told how to call it now). */
export function editedLine(tool: WireTool): string {
  return `- "${tool.name}" has changed; until your tool list is refreshed, call it as follows: ${describe(tool)}`
}

/** The note's line for a tool announced for the next epoch (it cannot be called yet). */
export function announcedLine(tool: WireTool): string {
  return `- "${tool.name}" will be added to your tools when your tool list is next refreshed; it cannot be called yet. ${describe(tool)}`
}

/** The note's line for a tool added through the format's append path (callable from now on). */
export function appendedLine(tool: string, from: string | null): string {
  return `- "${tool}"${from ? ` (from ${from})` : ''} is available from now on: you can call it.`
}

const REMOVAL_LINE = /^- "([^"]+)"(?: \(from [^\n]*\))? is no longer available: it stays in your list, but a call to it returns an error\. Do not call it\.$/

/** The tools a tool-change note told inert (the `removed:` keys of what it told); none for any other text. */
export function removedIn(note: string): string[] {
  if (!note.startsWith(`${TOOL_CHANGE_NOTE_MARKER}\n`)) return []
  return note.split('\n').flatMap((line) => {
    const match = REMOVAL_LINE.exec(line)
    return match ? [`removed:${match[1]}`] : []
  })
}

/** A tool as the note describes it: its description and its parameters' JSON Schema. */
function describe(tool: WireTool): string {
  return `${tool.description ?? ''}${tool.parameters ? ` Parameters (JSON Schema): ${JSON.stringify(tool.parameters)}` : ''}`.trim()
}
