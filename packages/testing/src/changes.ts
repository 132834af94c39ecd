/**
 * Recording the services' change notifications (`system-prompt/change`, `tools/change`) as they happen.
 * @module
 */
import type { Context } from 'cordis'
import type { PromptChangeEvent } from 'dsh-system-prompt'
import type { ToolChangeEvent } from 'dsh-tools'

/** The change events a test can record, by event name. */
export interface ChangeEvents {
  'system-prompt/change': PromptChangeEvent
  'tools/change': ToolChangeEvent
}

/**
 * Records every change event `ctx` sees from now on (default `system-prompt/change`), in order, into
 * the array it returns. The listener lives as long as `ctx`.
 */
export function recordChanges<K extends keyof ChangeEvents = 'system-prompt/change'>(ctx: Context, event?: K): Array<ChangeEvents[K]> {
  const events: Array<ChangeEvents[K]> = []
  const name = (event ?? 'system-prompt/change') as keyof ChangeEvents
  ctx.on(name, (change: ChangeEvents[typeof name]) => { events.push(change as ChangeEvents[K]) })
  return events
}

/** Each change as `kind action name` (`kind action` when it names nothing), for compact comparisons. */
export function describeChanges(events: ReadonlyArray<{ kind: string; action: string; name?: string }>): string[] {
  return events.map((e) => `${e.kind} ${e.action}${e.name === undefined ? '' : ' ' + e.name}`)
}
