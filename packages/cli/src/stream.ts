/**
 * A target's request as its provider hashes it (`--format` of `explain` and `diff`): the body in one
 * wire format, its cache stream (`dsh-wire`: the model, then the tools, system prompt and messages in
 * the format's order, each as canonical JSON without cache markers), and each part named with its
 * owner and its byte offset in the stream, where a change starts re-sending everything after it.
 * @module
 */
import { RUNTIME_CONTEXT_HEADING } from 'dsh-system-prompt'
import type { BootedDeployment as Booted } from 'dsh-boot'
import { buildRequest, cacheStream, wireFormat as formatModule, wireFormatNames, type CacheStream, type StreamPart, type StreamRegion, type WireFormat } from 'dsh-wire'
import { formatNeedsAgent, unknownFormat } from './errors.js'
import { ownersOf } from './owners.js'
import { toolOrigins, type PromptView } from './view.js'

export type { StreamRegion, WireFormat }

/** The format of `--format`, checked: a name that is not a wire format is a usage error naming them. */
export function wireFormat(value: string | undefined): WireFormat | undefined {
  if (value === undefined) return undefined
  const known = wireFormatNames()
  if (!(known as readonly string[]).includes(value)) throw unknownFormat(value, known)
  return value as WireFormat
}

/** The regions of a request in the order `format` hashes them (after the model). */
export function streamOrder(format: WireFormat): readonly StreamRegion[] {
  return formatModule(format).order
}

/**
 * The cache stream of the request the view's step made, in `format`: the same record, tools, model and
 * policy lowered to that format (what `agent.step(input, { format })` would have returned). A target
 * without an agent has no request: a usage error.
 */
export function streamOf(booted: Booted, view: PromptView, format: WireFormat): CacheStream {
  const agent = view.target.agent
  if (!agent) throw formatNeedsAgent(booted.deployment.displayFile)
  const body = buildRequest(format, {
    record: agent.conversation, tools: view.assembly.tools, model: agent.model, promptChange: agent.promptChange, conversationId: agent.id,
  })
  return cacheStream(format, body)
}

/** One part of a cache stream as `explain --format` lists it. */
export interface StreamRow {
  /** 1-based position in the stream. */
  position: number
  kind: StreamPart['kind']
  /** The index `dsh-wire` gives the part (the tool's, or the message's in the request's own list). */
  index: number
  /** What the part is: the model's name, the tool's, `system prompt`, `runtime context`, or `message (role)`. */
  name: string
  /** The owning plugin, when one plugin owns the whole part (a tool); `null` for parts several make. */
  owner: string | null
  layer: string | null
  /** The part's first byte in the stream: a change here re-sends every byte from here on. */
  start: number
  bytes: number
}

/** The parts of `stream`, named, with owners and offsets. */
export function streamRows(booted: Booted, view: PromptView, stream: CacheStream): StreamRow[] {
  const originOf = toolOrigins(booted, view.target)
  const owners = ownersOf(booted)
  let start = 0
  return stream.parts.map((part, i) => {
    const row: StreamRow = { position: i + 1, kind: part.kind, index: part.index, name: '', owner: null, layer: null, start, bytes: part.bytes }
    start += part.bytes
    if (part.kind === 'model') row.name = view.target.agent!.model
    else if (part.kind === 'system') row.name = 'system prompt'
    else if (part.kind === 'tool') Object.assign(row, { name: part.name ?? `tool ${part.index}` }, originOf(part.name ?? ''))
    else if (carriesSnapshot(part)) {
      row.name = 'runtime context'
      const contextOwners = new Set(view.contexts.map((c) => owners.plugin(c.entry.owner)))
      if (contextOwners.size === 1) Object.assign(row, { owner: [...contextOwners][0], layer: owners.layer(view.contexts[0].entry.scope) })
    } else row.name = `message (${roleOf(part)})`
    if (row.layer === '') row.layer = null
    return row
  })
}

/** Whether a message part is the runtime-context snapshot (its text begins with the snapshot heading). */
function carriesSnapshot(part: StreamPart): boolean {
  return part.text.includes(JSON.stringify(RUNTIME_CONTEXT_HEADING).slice(0, -1))
}

function roleOf(part: StreamPart): string {
  try {
    const value = JSON.parse(part.text) as { role?: unknown }
    return typeof value.role === 'string' ? value.role : 'item'
  } catch {
    return 'item'
  }
}
