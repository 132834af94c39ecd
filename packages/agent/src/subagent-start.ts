/**
 * How a child agent starts (issue 21, item 2): from its parent's latest sent request (`parent`), from
 * a live re-render with its own scope measured against the parent's latest request (`live`, the
 * default), or fresh (`fresh`). What a start decides: the child's first record entries, the wire
 * sessions it continues, the requests its first report is measured against, and its routing key.
 * `agents.create()` checks the start before the child exists and hands the seed to the agent.
 * Pure apart from the parent's state it copies (never changes).
 * @module
 */
import type { WireFormat, WireSession } from 'dsh-wire'
import type { ReuseTracker } from './cache-report.js'
import type { ConversationEntry, PromptChangePolicy } from './conversation.js'
import { invalidStart, startWithoutRequest } from './errors.js'

/**
 * How a child agent starts:
 * - `parent`: its record begins as the parent's latest request (same entries, same lowering, same
 *   Anthropic breakpoints); what its own scope adds arrives as an appended prompt version and snapshot.
 * - `live` (default): it renders its own scope from the start; its first report is measured against
 *   the parent's latest request and names the section (and owner) where the two stop sharing.
 * - `fresh`: it renders its own scope and claims nothing of the parent's cache.
 */
export type SubagentStart = 'parent' | 'live' | 'fresh'

/** Every start, in the order the docs list them. */
export const SUBAGENT_STARTS: readonly SubagentStart[] = Object.freeze(['parent', 'live', 'fresh'])

/** The start of a child created without `start`: today's re-render with the child's scope, now credited with what it shares. */
export const DEFAULT_SUBAGENT_START: SubagentStart = 'live'

/** What a child reads of its parent when it is created (`Agent.handoff()`); nothing here is changed. */
export interface ParentHandoff {
  readonly id: string
  readonly model: string
  readonly promptChange: PromptChangePolicy
  /** The routing key of the parent's latest request (its `conversationId`), else the parent's own routing key. */
  readonly routingKey: string
  /** The entries the parent's latest request sent (the start of its record), or `undefined` before its first request. */
  readonly sent: readonly ConversationEntry[] | undefined
  /** The parent's lowering per format. */
  readonly sessions: ReadonlyMap<WireFormat, WireSession<WireFormat>>
  /** The parent's reuse tracker (its latest request of each format). */
  readonly reuse: ReuseTracker
  /** The parent's reuse tracker as it stands when asked, once the parent has sent a request (`undefined` before, or once it is disposed). */
  readonly later: () => ReuseTracker | undefined
}

/** What a child begins with (`Agent.seed()` applies it before the child's first step). */
export interface ChildSeed {
  /** The child's first record entries (the parent's, shared: entries are frozen). */
  readonly entries: readonly ConversationEntry[]
  /** The lowerings the child continues (copies of the parent's). */
  readonly sessions: ReadonlyMap<WireFormat, WireSession<WireFormat>>
  /** The tracker whose latest requests the child's first report is measured against, if any. */
  readonly measureFrom: ReuseTracker | undefined
  /**
   * For a `live` child of a parent that has sent nothing yet (an `agents:` row, created when the file
   * loads): the parent's tracker as it stands at the child's first step, if the parent has sent by then.
   */
  readonly measureLater?: () => ReuseTracker | undefined
}

/** What `agents.create()` was asked for that a start depends on. */
export interface StartRequest {
  readonly id: string
  readonly start: unknown
  readonly model: string
  /** The policy given to `create()`, if one was. */
  readonly promptChange: PromptChangePolicy | undefined
}

/**
 * The start `request` asks for, checked against `parent` (absent for an agent without one): `undefined`
 * for an agent without parent; `AGENT_INVALID_START` for an unknown start, a start without a parent,
 * or a `parent` start with another model or prompt-change policy than the parent's (the request would
 * differ from its first byte); `AGENT_START_NO_REQUEST` for a `parent` start before the parent's first
 * request.
 */
export function checkedStart(request: StartRequest, parent: ParentHandoff | undefined): SubagentStart | undefined {
  const { id, start } = request
  if (start !== undefined && !SUBAGENT_STARTS.includes(start as SubagentStart)) {
    throw invalidStart(id, `expected one of ${SUBAGENT_STARTS.map((name) => `"${name}"`).join(', ')}, received ${typeof start === 'string' ? JSON.stringify(start) : start === null ? 'null' : `a ${typeof start}`}`)
  }
  if (!parent) {
    if (start !== undefined) throw invalidStart(id, `"${start as string}" needs a parent agent (set parent)`)
    return undefined
  }
  const chosen = (start ?? DEFAULT_SUBAGENT_START) as SubagentStart
  if (chosen !== 'parent') return chosen
  if (request.model !== parent.model) {
    throw invalidStart(id, `"parent" needs the parent's model ("${parent.model}"), received "${request.model}" (a provider caches per model; start "live" or "fresh" with another model)`)
  }
  if (request.promptChange !== undefined && request.promptChange !== parent.promptChange) {
    throw invalidStart(id, `"parent" needs the parent's promptChange ("${parent.promptChange}"), received "${request.promptChange}"`)
  }
  if (!parent.sent) throw startWithoutRequest(id, parent.id)
  return chosen
}

/**
 * A child's routing key (`prompt_cache_key` of its `openai-responses` requests, and what a harness sends
 * as a routing header): the parent's for `parent` and `live`, since the two share a prefix and the
 * provider serves it only where the parent's requests were routed; `<parent's key>/<child id>` for
 * `fresh`, which shares nothing but keeps its lineage readable.
 */
export function childRoutingKey(start: SubagentStart, parent: ParentHandoff, id: string): string {
  return start === 'fresh' ? `${parent.routingKey}/${id}` : parent.routingKey
}

/** What a child started as `start` from `parent` begins with. */
export function childSeed(start: SubagentStart, parent: ParentHandoff): ChildSeed {
  if (start === 'fresh') return { entries: [], sessions: new Map(), measureFrom: undefined }
  if (start === 'live') return parent.sent ? { entries: [], sessions: new Map(), measureFrom: parent.reuse } : { entries: [], sessions: new Map(), measureFrom: undefined, measureLater: parent.later }
  const sessions = new Map<WireFormat, WireSession<WireFormat>>()
  for (const [format, session] of parent.sessions) sessions.set(format, session.branch())
  return { entries: [...parent.sent!], sessions, measureFrom: parent.reuse }
}
