/**
 * How `explain` and `replay` show tool changes (issue 21, item 4): the agent's tool-change policy in
 * one line, and each change a request's report names (its tool, kind, owner, how the request declares
 * it, and its predicted cache cost). Pure.
 * @module
 */
import type { ToolChange, ToolChangePolicy } from 'dsh-agent'
import type { ToolAppendChoice } from 'dsh-wire'
import { formatCount } from './table.js'

/** `tool changes: removed inert, added append-path, edited immediate, reordered keep`. */
export function toolPolicyLine(policy: ToolChangePolicy): string {
  return `tool changes: removed ${policy.removed}, added ${policy.added}, edited ${policy.edited}, reordered ${policy.reordered} (docs/sessions.md)`
}

/** How a tool added mid-conversation enters the next request (`explain --format`, R-TOOL-13): the append path, or declared now and why. */
export function toolAppendLine(choice: ToolAppendChoice): string {
  return 'via' in choice
    ? `an added tool: through the append path, no break (${choice.via}${choice.header ? `; header ${choice.header.name}: ${choice.header.value}` : ''})`
    : `an added tool: declared now, a predicted break (${choice.fallback})`
}

/** What a handling means, in words. */
export const HANDLING: Readonly<Record<ToolChange['handling'], string>> = {
  declared: 'declared now',
  inert: 'kept declared, inert (a call gets AGENT_TOOL_UNAVAILABLE)',
  'next-epoch': 'announced, declared at the next epoch',
  'order-kept': 'declared in the previous order',
  appended: 'offered from here on through the append path, the declared tools unchanged',
}

/** One change on a line: `"write" removed (owner lender): kept declared, inert ...; keeps section "tool:write" as sent until the next epoch; no break`. */
export function toolChangeLine(change: ToolChange, owner: string | null = change.owner): string {
  const cost = change.breaks ? `breaks the prefix, ${formatCount(change.cost)} tokens no longer read` : 'no break'
  // A kept section's owner is named when it is not the tool's (usually it is: the tool's own guidance).
  const kept = change.kept?.length
    ? `; keeps ${change.kept.map((section) => `section ${JSON.stringify(section.section)}${section.owner && section.owner !== change.owner ? ` (owner ${section.owner})` : ''}`).join(', ')} as sent until the next epoch`
    : ''
  const why = change.fallback ?? change.via
  return `${JSON.stringify(change.tool)} ${change.kind}${owner ? ` (owner ${owner})` : ''}: ${HANDLING[change.handling]}${kept}; ${cost}${why ? ` (${why})` : ''}`
}
