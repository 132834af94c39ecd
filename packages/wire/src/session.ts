/**
 * A wire session: one format's lowering of one growing conversation record, kept between requests so
 * that each request lowers only the entries recorded since the previous one (issue 14). The record is
 * append-only, so what was sent before is sent again unchanged: its elements (messages, input items,
 * contents) are reused as they are, the request body's JSON is extended from the previous one's (a
 * string built by concatenation, byte-identical to `JSON.stringify(request)`), and the cache stream's
 * parts for them are reused too. Only a record that does not extend the one seen last (a different
 * record, or a clear of the system prompt under `append`) is lowered again from the start.
 *
 * Every format's builder (`buildRequest`, `openaiChatRequest`, ...) is a fresh session's first build,
 * so there is one lowering, whether a request is built once or step by step.
 * Pure and Cordis-free.
 * @module
 */
import { MAX_BREAKPOINTS, type Breakpoint } from './breakpoints.js'
import { streamPart, type HeadMemo, type StreamPart } from './cache-stream.js'
import { headOf } from './format-stream.js'
import { wireFormat, type RequestBodies, type WireFormat } from './format.js'
import type { CallLookup, PlannerState, WireFormatModule } from './format-module.js'
import type { WireInput } from './input.js'
import { promptUpdateLowering, type PromptUpdateLowering } from './prompt-updates.js'
import { withFields } from './request-fields.js'
import { frozenCheck, sameJson } from './same-json.js'
import { latestClear, placeEntry, type ConversationEntry, type PromptChangePolicy, type ToolCall, type WireTool } from './record.js'

export type { CallLookup } from './format-module.js'

/** One build of a session: the request, its body as JSON, and its cache stream in two pieces. */
export interface SessionBuild<F extends WireFormat> {
  /** The request body (a fresh object, its element list a fresh array, made on first read and kept). */
  readonly request: RequestBodies[F]
  /** The model the request names. */
  readonly model: string
  /**
   * `JSON.stringify(request)`, built from the previous body's JSON and the new elements' (made on first
   * read, then kept; it throws what `JSON.stringify` would, such as a tool's failing `toJSON`).
   */
  readonly body: string
  /** The stream's parts before the element list (model, system prompt, tools), in hashing order. */
  readonly head: readonly StreamPart[]
  /**
   * The parts of the element list, in order, for the first `elementCount` entries of this array (a
   * later build may add to the same array; it never changes those).
   */
  readonly elements: readonly StreamPart[]
  readonly elementCount: number
  /**
   * How many elements this build shares with the previous build of the session, unchanged and in
   * place (`-1` on a first build or when the record was lowered again from the start).
   */
  readonly kept: number
  /** The cache markers the format's planner placed (Anthropic's breakpoints); empty for a format without one. */
  readonly breakpoints: readonly Breakpoint[]
  /** How a system-prompt version after the opening is sent in this request (`prompt-updates.ts`). */
  readonly promptUpdate: PromptUpdateLowering
}

/**
 * One build: its parts as data, its request and body made on first read. A class whose accessors sit on
 * its prototype, not an object literal with getters: V8 makes a literal's accessor pair in its old
 * generation, so the closures it holds (and the state they capture) would survive every young
 * collection until the next full one (bench/README.md, "Seventh round").
 */
class Build<F extends WireFormat> implements SessionBuild<F> {
  readonly #request: () => RequestBodies[F]
  readonly #body: () => string

  constructor(
    request: () => RequestBodies[F], body: () => string, readonly model: string, readonly head: readonly StreamPart[], readonly elements: readonly StreamPart[],
    readonly elementCount: number, readonly kept: number, readonly breakpoints: readonly Breakpoint[], readonly promptUpdate: PromptUpdateLowering,
  ) {
    this.#request = request
    this.#body = body
  }

  get request(): RequestBodies[F] {
    return this.#request()
  }

  get body(): string {
    return this.#body()
  }
}

interface State {
  policy: PromptChangePolicy
  /** How this state's prompt versions after the opening were lowered (a change lowers everything again). */
  update: PromptUpdateLowering
  seen: number
  last: ConversationEntry | undefined
  opening: ConversationEntry | undefined
  /** The sent entries after the opening, and each one's index there. */
  rest: ConversationEntry[]
  restIndex: WeakMap<ConversationEntry, number>
  elements: object[]
  /** `json[i]`: the JSON of element `i`; `prefix[i]`: the JSON of elements `0..i`, joined by commas. */
  json: string[]
  prefix: string[]
  parts: StreamPart[]
  calls: Map<string, ToolCall>
  /** The planner's running sums (see `PlannerState`). */
  tokens: number[]
  blocks: number[]
  counter: unknown
}

/** One format's lowering of one conversation record, extended request by request. */
export class WireSession<F extends WireFormat> {
  private state: State | undefined
  private readonly module: WireFormatModule<RequestBodies[F]>
  private head: { opening: ConversationEntry | undefined; system: StreamPart[] | undefined; tools: { name: string; source: WireTool; part: StreamPart }[] } | undefined
  /**
   * The JSON (and, for Anthropic's planner, the token estimate) of each part of the head as last made,
   * with the value it was made from: the head is rebuilt at every step, but a part that serialises as
   * before (`sameJson`) is not serialised or counted again.
   */
  private made = new Map<string, { value: unknown; json: string; tokens?: number; counter?: unknown }>()
  private readonly frozen = frozenCheck()
  /** The cache markers of the latest build (a fork's build places the same). */
  private points: readonly Breakpoint[] = []
  /** Set while a fork builds: the markers to place instead of planning. */
  private pinned: readonly Breakpoint[] | undefined
  /** Set on a branch until its first build: that build also places the planner's tail, when there is room for it. */
  private pinnedTail = false
  /** The planner's view of each state this session built from (`plannerState`); a state goes with its view. */
  private readonly planners = new WeakMap<State, PlannerState>()

  constructor(readonly format: F) {
    this.module = wireFormat(format)
  }

  /** The request for `input`, lowering only the entries recorded since the previous build when the record extends it. */
  build(input: WireInput): SessionBuild<F> {
    const { record } = input
    const state = this.state
    const update = promptUpdateLowering(this.module, input.model, input.promptUpdates)
    const extendsIt = state !== undefined && state.policy === input.promptChange && state.update === update && record.length >= state.seen &&
      (state.seen === 0 || record[state.seen - 1] === state.last)
    if (extendsIt) {
      const added = record.slice(state.seen)
      // A clear of the system prompt under `append` changes what earlier entries send: lower everything again.
      if (!(input.promptChange === 'append' && added.some(isClear))) {
        const kept = state.elements.length
        const lowered = this.lowerAll(state, added, -1)
        const opening = lowered.opening === undefined ? state.opening : lowered.opening ?? undefined
        // A format that sends the opening as its first element (openai-chat's messages[0]): when it
        // comes or goes, every index moves.
        if (!(this.module.openingIsElement && (state.opening !== undefined) !== (opening !== undefined) && state.rest.length + lowered.rest.length > 0)) {
          this.commit(state, lowered, record)
          return this.finish(input, state, kept)
        }
      }
    }
    this.state = this.fresh(input)
    // A record lowered again from the start has no earlier positions to keep.
    this.pinned = undefined
    return this.finish(input, this.state, -1)
  }

  /**
   * Forgets the lowered record, so the next build lowers its record from the start, keeping the memo of
   * the head (the tools' and the prompt's JSON): for a record that was replaced rather than grown (a
   * compaction), which could otherwise look grown when an entry it kept lands where the old last one was.
   */
  restart(): void {
    this.state = undefined
  }

  /**
   * The build of `input` (the record of the latest build, possibly grown, plus a fork's entries) on a
   * copy of the session, which stays as it was: its next build extends its own latest one. The fork's
   * cache markers are the latest build's, at the same positions (none on what the fork adds: it is
   * sent once, so writing it to the cache would be paid for and never read), unless the record had to
   * be lowered again from the start.
   */
  fork(input: WireInput): SessionBuild<F> {
    const { state, head, points, made } = this
    // The fork's head parts are remembered apart (its body is made when read, after this returns), so
    // the session's next build finds its own latest ones.
    this.made = new Map(made)
    if (state !== undefined) {
      this.state = {
        ...state, rest: [...state.rest], elements: [...state.elements], json: [...state.json], prefix: [...state.prefix], parts: [...state.parts],
        calls: new Map(state.calls), tokens: [...state.tokens], blocks: [...state.blocks],
      }
      this.pinned = points
    }
    try {
      return this.build(input)
    } finally {
      this.state = state
      this.head = head
      this.points = points
      this.made = made
      this.pinned = undefined
    }
  }

  /**
   * A new session that continues from this one's latest build (a child agent started from its parent's
   * latest request, issue 21 item 2): the state's arrays copied, the elements and their JSON shared. Its
   * first build of a record that extends the latest one lowers only what was added and places the
   * latest build's cache markers, as a fork does; later builds plan as usual. This session is unchanged.
   */
  branch(): WireSession<F> {
    const copy = new WireSession(this.format)
    const { state } = this
    if (state === undefined) return copy
    copy.state = {
      ...state, rest: [...state.rest], restIndex: new WeakMap(state.rest.map((item, i) => [item, i])), elements: [...state.elements], json: [...state.json],
      prefix: [...state.prefix], parts: [...state.parts], calls: new Map(state.calls), tokens: [...state.tokens], blocks: [...state.blocks],
    }
    copy.head = this.head
    copy.made = new Map(this.made)
    copy.points = this.points
    copy.pinned = this.points
    copy.pinnedTail = true
    return copy
  }

  private fresh(input: WireInput): State {
    const state: State = {
      policy: input.promptChange, update: promptUpdateLowering(this.module, input.model, input.promptUpdates), seen: 0, last: undefined, opening: undefined, rest: [], restIndex: new WeakMap(), elements: [], json: [], prefix: [], parts: [],
      calls: new Map(), tokens: [], blocks: [], counter: undefined,
    }
    // Under `append`, system-prompt entries up to the latest clear are not sent (R-WIRE-3).
    const { record } = input
    const clearedAt = input.promptChange === 'append' ? latestClear(record) : -1
    const lowered = this.lowerAll(state, record, clearedAt)
    this.commit(state, lowered, record)
    return state
  }

  /**
   * Places `entries` as `placeEntry` says (entries up to `clearedAt` come before the latest clear) and
   * lowers the rest, without touching `state` (a lowering that throws leaves the session as it was).
   * `opening`: `undefined` when unchanged, `null` when cleared (under `replace`).
   */
  private lowerAll(state: State, entries: readonly ConversationEntry[], clearedAt: number) {
    const calls = new Map<string, ToolCall>()
    const lookup: CallLookup = (id) => calls.get(id) ?? state.calls.get(id)
    // Tool results may name a call recorded anywhere in the record.
    for (const item of entries) if (item.role === 'assistant') for (const call of item.tool_calls ?? []) calls.set(call.id, call)
    let opening: ConversationEntry | null | undefined
    const sent = { opening: state.opening !== undefined, rest: state.rest.length }
    const rest: ConversationEntry[] = []
    const elements: object[] = []
    entries.forEach((item, i) => {
      const place = placeEntry(item, state.policy, sent, i <= clearedAt)
      if (place === 'opening' || place === 'clear-opening') {
        opening = place === 'opening' ? item : null
        sent.opening = place === 'opening'
      } else if (place === 'rest') {
        rest.push(item)
        sent.rest++
        for (const element of lowered(this.module, item, lookup, state.update)) elements.push(element)
      }
    })
    return { opening, rest, elements, calls }
  }

  private commit(state: State, lowered: ReturnType<WireSession<F>['lowerAll']>, record: readonly ConversationEntry[]): void {
    if (lowered.opening !== undefined) state.opening = lowered.opening ?? undefined
    for (const [id, call] of lowered.calls) state.calls.set(id, call)
    for (const item of lowered.rest) {
      state.restIndex.set(item, state.rest.length)
      state.rest.push(item)
    }
    const offset = this.module.openingIsElement && state.opening !== undefined ? 1 : 0
    for (const element of lowered.elements) {
      const i = state.elements.length
      state.elements.push(element)
      const json = JSON.stringify(element)
      state.json.push(json)
      state.prefix.push(i === 0 ? json : `${state.prefix[i - 1]},${json}`)
      state.parts.push(streamPart('message', i + offset, element, this.module.blocks(element)))
    }
    state.seen = record.length
    state.last = record[record.length - 1]
  }

  private finish(input: WireInput, state: State, kept: number): SessionBuild<F> {
    // The head: the body with no elements (the opening system message alone, for a format that sends
    // it as an element). The whole request, a fresh list of every element, is made only when it is
    // read: a harness that sends `body` never pays for a list as long as the conversation.
    const { module } = this
    const head = withFields(module, module.body(input, state.opening, [], true), input.fields)
    const planner = input.breakpoints === false ? undefined : module.planner
    let points: Breakpoint[] = []
    if (planner) {
      points = this.pinned ? this.pinned.filter((point) => placeable(point, head, state.elements.length)) : planner.plan(input, head, this.plannerState(state))
      // A branch's first build writes its own tail for its next request, after the pinned markers.
      if (this.pinned && this.pinnedTail) points = withTail(points, planner.plan(input, head, this.plannerState(state)), input)
      planner.mark(head, points.filter((point) => point.where !== 'messages'))
    }
    // Pinned markers hold for one build (a fork's, or a branch's first).
    this.pinned = undefined
    this.pinnedTail = false
    this.points = points
    // What this build sends as it stands now: a later build may extend the state, never change it.
    const count = state.elements.length
    let body: string | undefined
    let request: RequestBodies[F] | undefined
    const whole = (): RequestBodies[F] => {
      if (request) return request
      request = withFields(module, module.body(input, state.opening, state.elements.slice(0, count)), input.fields)
      if (planner && points.length) planner.mark(request, points)
      return request
    }
    const made = this.made
    const json = () => (body ??= this.bodyJson(head, state, points, count, made))
    return new Build(whole, json, input.model, headOf(module, head, this.memo(input, state)), state.parts, count, kept, points, state.update)
  }

  /**
   * The head parts of the previous build, reused where the opening or a tool is the same as then (the
   * same entry; the same name, description and parameters object, frozen plain data all the way down,
   * so that it cannot have changed in place): a large prompt and 30 tools are not serialised again at
   * every step.
   */
  private memo(input: WireInput, state: State): HeadMemo {
    const before = this.head
    const now: typeof this.head = { opening: state.opening, system: undefined, tools: [] }
    this.head = now
    return {
      system: (make) => (now.system = before !== undefined && before.opening === state.opening && before.system ? before.system : make()),
      tool: (index, name, make) => {
        const source = input.tools[index]
        const known = before?.tools[index]
        const part = known && known.name === name && known.source.parameters === source.parameters && known.source.description === source.description && known.source.name === source.name &&
          (source.parameters === undefined || this.frozen(source.parameters))
          ? known.part : make()
        now.tools[index] = { name, source: { name: source.name, description: source.description, parameters: source.parameters }, part }
        return part
      },
    }
  }

  /** What the format's planner reads and keeps of the session's state. */
  /** The planner's view of `state`, made once per state (its accessors are closures: not one set per step). */
  private plannerState(state: State): PlannerState {
    let planner = this.planners.get(state)
    if (planner === undefined) {
      this.planners.set(state, planner = {
        elements: state.elements, rest: state.rest, indexOf: (item) => state.restIndex.get(item) ?? -1,
        get tokens() { return state.tokens }, set tokens(value) { state.tokens = value },
        get blocks() { return state.blocks }, set blocks(value) { state.blocks = value },
        get counter() { return state.counter }, set counter(value) { state.counter = value },
        counted: (key, value, counter, tokens) => this.counted(key, value, counter, tokens),
      })
    }
    return planner
  }

  /** `JSON.stringify(value)` for the head part `key`, the one made last time when it serialises the same. */
  private json(key: string, value: unknown, made = this.made): string {
    const last = made.get(key)
    if (last !== undefined && sameJson(last.value, value, this.frozen)) return last.json
    const json = JSON.stringify(value)
    made.set(key, { value, json })
    return json
  }

  /** `tokens(value)` for the head part `key` counted with `counter`, the count made last time when it is the same. */
  private counted<T>(key: string, value: T, counter: unknown, tokens: (value: T) => number): number {
    const last = this.made.get(key)
    if (last !== undefined && last.counter === counter && last.tokens !== undefined && sameJson(last.value, value, this.frozen)) return last.tokens
    const made = { value, json: '', tokens: tokens(value), counter }
    this.made.set(key, made)
    return made.tokens
  }

  /** `JSON.stringify(request)`, the element list joined from the kept JSON of each element. */
  private bodyJson(head: RequestBodies[F], state: State, points: readonly Breakpoint[], count: number, made: WireSession<F>['made']): string {
    const key = this.module.elementsKey
    const list = (head as unknown as Record<string, object[]>)[key]
    const offset = list.length
    // Elements a breakpoint marks are copies: their JSON is made afresh, the others' is kept. The
    // planner gives the points in stream order.
    let joined = ''
    let start = 0
    const segment = (from: number, to: number): string => {
      if (from > to) return ''
      if (from === 0) return state.prefix[to]
      let text = state.json[from]
      for (let i = from + 1; i <= to; i++) text += `,${state.json[i]}`
      return text
    }
    const pieces: string[] = []
    if (offset) pieces.push(this.json('opening', list[0], made))
    for (const point of points) {
      if (point.where !== 'messages') continue
      const before = segment(start, point.index - 1)
      if (before) pieces.push(before)
      pieces.push(JSON.stringify(this.module.planner!.markElement(state.elements[point.index], point)))
      start = point.index + 1
    }
    const after = segment(start, count - 1)
    if (after) pieces.push(after)
    // Concatenation, never `join`: it keeps the earlier prefix as it is instead of copying it.
    for (let i = 0; i < pieces.length; i++) joined = i ? `${joined},${pieces[i]}` : pieces[i]
    let body = '{'
    let first = true
    for (const name of Object.keys(head)) {
      const value = (head as unknown as Record<string, unknown>)[name]
      if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue
      body += `${first ? '' : ','}${JSON.stringify(name)}:${name === key ? `[${joined}]` : this.json(`head:${name}`, value, made)}`
      first = false
    }
    return `${body}}`
  }
}

/**
 * `pinned` and the planned tail after them, when it marks a later element, there is room under `max`
 * and its TTL does not follow a shorter one (the API refuses a `1h` marker after a `5m` one).
 */
function withTail(pinned: Breakpoint[], planned: readonly Breakpoint[], input: WireInput): Breakpoint[] {
  const tail = planned.find((point) => point.kind === 'tail')
  const last = pinned.at(-1)
  const max = (input.breakpoints || {}).max ?? MAX_BREAKPOINTS
  if (!tail || pinned.length >= max || (tail.ttl === '1h' && pinned.some((point) => point.ttl !== '1h'))) return pinned
  if (last && (tail.where !== 'messages' || (last.where === 'messages' && last.index >= tail.index))) return pinned
  return [...pinned, tail]
}

/** Whether a kept marker still has its element in a fork's request (a fork under `replace` may send a different system prompt). */
function placeable(point: Breakpoint, head: object, elements: number): boolean {
  const list = point.where === 'messages' ? undefined : (head as Record<string, unknown>)[point.where]
  return point.where === 'messages' ? point.index < elements : Array.isArray(list) && point.index < list.length
}

function isClear(item: ConversationEntry): boolean {
  return item.source === 'system-prompt' && !item.content
}

/**
 * The elements of one sent entry, frozen: every later request of the session sends these very objects.
 * Kept by the session (no module-wide cache keyed by entries: V8's weak tables do not shrink).
 */
function lowered(module: Pick<WireFormatModule, 'lower'>, item: ConversationEntry, calls: CallLookup, update: PromptUpdateLowering): readonly object[] {
  return module.lower(item, calls, update).map(deepFreezeData)
}

function deepFreezeData<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const key of Object.keys(value)) deepFreezeData((value as Record<string, unknown>)[key])
    Object.freeze(value)
  }
  return value
}

