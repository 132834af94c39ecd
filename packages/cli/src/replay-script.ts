/**
 * The replay script (R-CLI-7): a YAML mapping whose `turns:` list says what happens in a conversation,
 * read into plain, checked steps. Every malformed turn is a problem naming the file, the line and the
 * turn; all of them are reported together and nothing is played. Pure apart from reading the file.
 * @module
 */
import { checkYamlLimits, DEFAULT_MAX_DOUBLE_QUOTED_CHARS, DEFAULT_MAX_FILE_BYTES, DEFAULT_MAX_YAML_TOKENS, readRegularFile, type YamlLimits } from 'dsh-loader'
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node, type Pair, type YAMLMap } from 'yaml'
import { DEFAULT_SUBAGENT_START, SUBAGENT_STARTS, type SubagentStart } from 'dsh-agent'
import { codeOf } from './codes.js'
import {
  REPLAY_KINDS, scriptBadArguments, scriptBadClock, scriptCallAnswered, scriptEmptyReply, scriptInvalid, scriptItemKind, scriptNoCall, scriptShape,
  scriptTooManyTurns, scriptUnanswered, scriptUnknownKey, scriptUnreadable, scriptWrongType, scriptYaml, type CliMessage, type ScriptProblem,
} from './errors.js'

/** A tool call of a scripted assistant reply, as recorded: OpenAI's function-call shape with a deterministic id. */
export interface ScriptToolCall {
  /** `call_<turn>_<n>`: the request the reply answers, and the call's place in the reply (from 1). */
  id: string
  type: 'function'
  function: { name: string; arguments: string }
}

/** What every turn carries: where it is in the script. */
interface Place {
  /** Its index in `turns:`. */
  index: number
  /** 1-based line and column of the turn in the script. */
  line: number
  column: number
}

/** One turn of the script, checked. */
export type ScriptTurn = Place & (
  /** A user message; a request follows (`request` is always true). */
  | { kind: 'user'; text: string; request: boolean }
  /** The model's reply to the last request, recorded (text and/or tool calls). */
  | { kind: 'assistant'; text: string | null; toolCalls: ScriptToolCall[] }
  /**
   * The result of the first call of tool `name` in the last reply that has none yet (a reply that calls
   * one tool twice gets two results, in order). A request follows (`request`), except when the next
   * turn is another result: the results of one reply's calls go back in one request, and every call
   * of the reply must have its result by then (`CLI_REPLAY_UNANSWERED_CALL`).
   */
  | { kind: 'tool'; name: string; callId: string; result: string; request: boolean }
  /** The row's config is replaced before the next request. */
  | { kind: 'change'; row: string; config: unknown }
  /** A plugin row is added before the next request. */
  | { kind: 'add-row'; row: Record<string, unknown> }
  /** The row is removed before the next request. */
  | { kind: 'remove-row'; row: string }
  /** The clock moves on by `ms` milliseconds (`text` as written, like `+1d`). */
  | { kind: 'clock'; ms: number; text: string }
  /** A side request (`agent.fork()`): the latest request plus `instruction`, recorded nowhere in the agent. */
  | { kind: 'fork'; fork: string; instruction: string }
  /** A sub-agent of the agent (`agents.create({ parent, start })`) sends `task` once, then is disposed. */
  | { kind: 'subagent'; id: string; start: SubagentStart; task: string }
  /** Tools hidden from (or shown again to) the agent by a restriction of its scope, before the next request (issue 21). */
  | { kind: 'tools'; hide: string[]; show: string[] }
  /** A compaction (`agent.compact()`): the summary replaces all but the last `keep` turns; a new epoch opens. */
  | { kind: 'compact'; summary: string; keep: number }
)

/** A checked script. */
export interface ReplayScript {
  /** The script file as messages show it. */
  file: string
  turns: ScriptTurn[]
}

const UNIT_MS = { d: 86_400_000, h: 3_600_000, m: 60_000 } as const
const ITEM_KEYS: Readonly<Record<(typeof REPLAY_KINDS)[number], readonly string[]>> = {
  user: ['user'], assistant: ['assistant', 'tool_calls'], tool: ['tool'], change: ['change'], row: ['row'], clock: ['clock'], fork: ['fork'], subagent: ['subagent'], tools: ['tools'], compact: ['compact'],
}

/** The most turns a script may hold by default (`--max-turns` raises it): each turn may run a step, whose request grows with the turns before it. */
export const DEFAULT_MAX_SCRIPT_TURNS = 1000

/** The bounds of reading a script: the file's size and YAML (the same as a deployment's, and the same flags), and its turns. */
export interface ScriptBounds {
  /** `--max-file-size` (default: the loader's 4 MiB). */
  maxBytes?: number
  /** `--max-yaml-tokens`, `--max-quoted-chars` (default: the loader's). */
  yaml?: Partial<YamlLimits>
  /** `--max-turns` (default {@link DEFAULT_MAX_SCRIPT_TURNS}). */
  maxTurns?: number
}

/**
 * Reads and checks the script at `path` (shown as `file`) the way every file the CLI reads is read
 * (`dsh-loader`'s `readRegularFile`: a regular file within the size limit, checked before it is opened;
 * then the YAML limits, checked before the parse); throws `CLI_REPLAY_SCRIPT_INVALID` listing every problem.
 */
export async function readReplayScript(path: string, file: string = path, bounds: ScriptBounds = {}): Promise<ReplayScript> {
  let text: string
  try {
    text = (await readRegularFile(path, bounds.maxBytes ?? DEFAULT_MAX_FILE_BYTES, { what: 'the replay script', raise: '--max-file-size <bytes>' })).toString('utf8')
    checkYamlLimits(text, { tokens: bounds.yaml?.tokens ?? DEFAULT_MAX_YAML_TOKENS, doubleQuotedChars: bounds.yaml?.doubleQuotedChars ?? DEFAULT_MAX_DOUBLE_QUOTED_CHARS },
      'the replay script', { tokens: '--max-yaml-tokens <n>', doubleQuotedChars: '--max-quoted-chars <n>' })
  } catch (error) {
    const checked = error as { code?: string; message: string; details?: object; position?: { line: number; column: number } }
    if (checked.code?.startsWith('LOADER_')) {
      throw scriptInvalid(file, [{ file, ...checked.position, code: checked.code, message: checked.message, details: checked.details ?? {} }])
    }
    const code = codeOf(error)
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : code === 'EACCES' ? 'permission denied' : String((error as Error)?.message ?? error)
    throw scriptInvalid(file, [{ file, ...scriptUnreadable(reason) }])
  }
  return parseReplayScript(text, file, bounds.maxTurns)
}

/** Checks the text of a script (`file` names it in problems); throws `CLI_REPLAY_SCRIPT_INVALID` listing every problem. */
export function parseReplayScript(text: string, file: string, maxTurns: number = DEFAULT_MAX_SCRIPT_TURNS): ReplayScript {
  const lines = new LineCounter()
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true })
  const problems: ScriptProblem[] = []
  const at = (offset: number | undefined) => {
    if (offset === undefined) return {}
    const { line, col } = lines.linePos(offset)
    return { line, column: col }
  }
  const report = (message: CliMessage, node: unknown, item?: string) =>
    problems.push({ file, ...at((node as Node | undefined)?.range?.[0]), ...(item ? { item } : {}), ...message })
  for (const error of doc.errors) problems.push({ file, ...at(error.pos[0]), ...scriptYaml(error.message.split('\n')[0]) })
  if (problems.length) throw scriptInvalid(file, problems)

  const top = doc.contents as Node | null
  const turnsNode = isMap(top) ? top.get('turns', true) as Node | undefined : undefined
  if (!isMap(top) || !isSeq(turnsNode)) {
    report(scriptShape(isMap(top) ? (turnsNode === undefined ? 'no "turns:" key' : describe(turnsNode)) : describe(top)), turnsNode ?? top)
    throw scriptInvalid(file, problems)
  }
  for (const pair of top.items) {
    if (keyOf(pair) !== 'turns') report(scriptUnknownKey(keyOf(pair), ['turns']), pair.key)
  }
  if (turnsNode.items.length > maxTurns) {
    report(scriptTooManyTurns(turnsNode.items.length, maxTurns), turnsNode.items[maxTurns], `turns[${maxTurns}]`)
    throw scriptInvalid(file, problems)
  }
  const reader = new TurnReader(doc, report)
  turnsNode.items.forEach((node, index) => reader.read(node as Node | null, index, at((node as Node | null)?.range?.[0])))
  reader.finish()
  problems.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0))
  if (problems.length) throw scriptInvalid(file, problems)
  return { file, turns: reader.turns }
}

type Fail = (message: CliMessage, at?: unknown) => undefined

/** Reads the turns one by one, keeping what later turns refer to: the request count and the tool calls so far. */
class TurnReader {
  readonly turns: ScriptTurn[] = []
  private requests = 0
  private readonly lastCall = new Map<string, string>()
  /** The calls of the last reply that have no result yet, in order. */
  private pending: ScriptToolCall[] = []
  /** The last tool turn read, while its request is still to come: where an unanswered call is reported. */
  private openResult?: { node: Node; item: string }

  constructor(
    private readonly doc: ReturnType<typeof parseDocument>,
    private readonly report: (message: CliMessage, node: unknown, item?: string) => void,
  ) {}

  read(node: Node | null, index: number, pos: { line?: number; column?: number }): void {
    const kinds = isMap(node) ? node.items.map(keyOf).filter((key) => (REPLAY_KINDS as readonly string[]).includes(key)) : []
    if (!isMap(node) || kinds.length !== 1) {
      const found = !isMap(node) ? describe(node) : kinds.length ? `the keys ${kinds.join(', ')}` : `the keys ${node.items.map(keyOf).join(', ') || '(none)'}`
      this.report(scriptItemKind(found), node, `turns[${index}]`)
      return
    }
    const kind = kinds[0] as (typeof REPLAY_KINDS)[number]
    const item = `turns[${index}] (${kind})`
    // A request (or a new reply) with calls of the last reply still unanswered: no provider takes it.
    if (kind !== 'tool' && this.openResult) this.unanswered(this.openResult.node, this.openResult.item)
    if ((kind === 'user' || kind === 'assistant' || kind === 'fork' || kind === 'subagent' || kind === 'compact') && this.pending.length) this.unanswered(node, item)
    this.openResult = kind === 'tool' ? { node, item } : undefined
    const fail = (message: CliMessage, at: unknown = node): undefined => {
      this.report(message, at, item)
      return undefined
    }
    for (const pair of node.items) {
      if (!ITEM_KEYS[kind].includes(keyOf(pair))) fail(scriptUnknownKey(keyOf(pair), ITEM_KEYS[kind]), pair.key)
    }
    const place: Place = { index, line: pos.line ?? 1, column: pos.column ?? 1 }
    const value = node.get(kind, true) as Node | null
    const turn = this.turnOf(kind, value, node, fail)
    if (!turn) return
    const previous = this.turns[this.turns.length - 1]
    if (turn.kind === 'user') this.requests++
    // The results of one reply's calls go back together: one request, after the last consecutive result.
    if (turn.kind === 'tool' && previous?.kind !== 'tool') this.requests++
    if (turn.kind === 'tool' && previous?.kind === 'tool' && previous.index === index - 1) previous.request = false
    this.turns.push({ ...place, ...turn, ...(turn.kind === 'user' || turn.kind === 'tool' ? { request: true } : {}) } as ScriptTurn)
  }

  private turnOf(kind: (typeof REPLAY_KINDS)[number], value: Node | null, node: YAMLMap, fail: Fail) {
    const plain = this.plain(value)
    switch (kind) {
      case 'user':
        if (typeof plain !== 'string') return fail(scriptWrongType('user', 'a text', describe(value)), value)
        return { kind, text: plain }
      case 'assistant': {
        if (plain !== null && plain !== undefined && typeof plain !== 'string') return fail(scriptWrongType('assistant', 'a text (or nothing, with tool_calls)', describe(value)), value)
        const calls = this.toolCalls(node.get('tool_calls', true) as Node | null | undefined, fail)
        if (!calls) return undefined
        if (!calls.length && !plain) return fail(scriptEmptyReply())
        return { kind, text: typeof plain === 'string' && plain ? plain : null, toolCalls: calls }
      }
      case 'tool': {
        const fields = this.fields(value, 'tool', ['name', 'result'], fail)
        if (!fields) return undefined
        const name = fields.name
        if (typeof name !== 'string' || !name) return fail(scriptWrongType('tool.name', 'a tool name', describeValue(name)), fieldNode(value, 'name'))
        if (fields.result === undefined) return fail(scriptWrongType('tool.result', 'the tool\'s result (a text, or data written as JSON)', 'nothing'), value)
        const answers = this.pending.findIndex((call) => call.function.name === name)
        if (answers === -1) {
          return fail(this.lastCall.has(name) ? scriptCallAnswered(name) : scriptNoCall(name, [...this.lastCall.keys()]), fieldNode(value, 'name'))
        }
        const [{ id: callId }] = this.pending.splice(answers, 1)
        return { kind, name, callId, result: typeof fields.result === 'string' ? fields.result : JSON.stringify(fields.result) }
      }
      case 'change': {
        const fields = this.fields(value, 'change', ['row', 'config'], fail)
        if (!fields) return undefined
        if (typeof fields.row !== 'string' || !fields.row) return fail(scriptWrongType('change.row', 'a row id', describeValue(fields.row)), fieldNode(value, 'row') ?? value)
        if (fields.config !== undefined && fields.config !== null && !isPlainObject(fields.config)) {
          return fail(scriptWrongType('change.config', 'a mapping (the row\'s whole new config)', describeValue(fields.config)), fieldNode(value, 'config'))
        }
        return { kind, row: fields.row, config: fields.config ?? undefined }
      }
      case 'row': {
        const fields = this.fields(value, 'row', ['add', 'remove'], fail)
        if (!fields) return undefined
        const given = ['add', 'remove'].filter((key) => fields[key] !== undefined)
        if (given.length !== 1) return fail(scriptWrongType('row', 'a mapping with one of add: {...plugin row...} or remove: <row id>', given.length ? 'both add and remove' : 'neither add nor remove'), value)
        if (given[0] === 'add') {
          if (!isPlainObject(fields.add)) return fail(scriptWrongType('row.add', 'a plugin row (a mapping like { name: dsh-plugin-shell, config: {...} })', describeValue(fields.add)), fieldNode(value, 'add'))
          return { kind: 'add-row' as const, row: fields.add }
        }
        if (typeof fields.remove !== 'string' || !fields.remove) return fail(scriptWrongType('row.remove', 'a row id', describeValue(fields.remove)), fieldNode(value, 'remove'))
        return { kind: 'remove-row' as const, row: fields.remove }
      }
      case 'fork': {
        const fields = this.fields(value, 'fork', ['kind', 'instruction'], fail)
        if (!fields) return undefined
        if (typeof fields.kind !== 'string' || !fields.kind) return fail(scriptWrongType('fork.kind', 'what the side request is for (compact, title, aside, ...)', describeValue(fields.kind)), fieldNode(value, 'kind') ?? value)
        if (typeof fields.instruction !== 'string' || !fields.instruction) {
          return fail(scriptWrongType('fork.instruction', 'the trailing user message (a text)', describeValue(fields.instruction)), fieldNode(value, 'instruction') ?? value)
        }
        return { kind, fork: fields.kind, instruction: fields.instruction }
      }
      case 'subagent': {
        const fields = this.fields(value, 'subagent', ['id', 'start', 'task'], fail)
        if (!fields) return undefined
        if (typeof fields.id !== 'string' || !fields.id) return fail(scriptWrongType('subagent.id', 'the sub-agent\'s id', describeValue(fields.id)), fieldNode(value, 'id') ?? value)
        const start = fields.start ?? DEFAULT_SUBAGENT_START
        if (!SUBAGENT_STARTS.includes(start as SubagentStart)) return fail(scriptWrongType('subagent.start', `one of ${SUBAGENT_STARTS.join(', ')}`, describeValue(start)), fieldNode(value, 'start'))
        if (typeof fields.task !== 'string' || !fields.task) return fail(scriptWrongType('subagent.task', 'its first user message (a text)', describeValue(fields.task)), fieldNode(value, 'task') ?? value)
        return { kind, id: fields.id, start: start as SubagentStart, task: fields.task }
      }
      case 'tools': {
        const fields = this.fields(value, 'tools', ['hide', 'show'], fail)
        if (!fields) return undefined
        const names = (key: 'hide' | 'show') => fields[key] === undefined ? [] : Array.isArray(fields[key]) && (fields[key] as unknown[]).every((name) => typeof name === 'string' && name) ? fields[key] as string[] : undefined
        const [hide, show] = [names('hide'), names('show')]
        if (!hide || !show || !hide.length && !show.length) {
          const key = !hide ? 'hide' : 'show'
          return fail(scriptWrongType(`tools.${key}`, 'a list of tool names (hide: the agent no longer sees them; show: it sees them again)', describeValue(fields[key])), fieldNode(value, key) ?? value)
        }
        return { kind, hide, show }
      }
      case 'compact': {
        const fields = this.fields(value, 'compact', ['summary', 'keep'], fail)
        if (!fields) return undefined
        if (typeof fields.summary !== 'string' || !fields.summary.trim()) return fail(scriptWrongType('compact.summary', 'the summary (a text)', describeValue(fields.summary)), fieldNode(value, 'summary') ?? value)
        const keep = fields.keep ?? 0
        if (typeof keep !== 'number' || !Number.isInteger(keep) || keep < 0) return fail(scriptWrongType('compact.keep', 'the turns kept word for word (a whole number, 0 or more)', describeValue(keep)), fieldNode(value, 'keep'))
        return { kind, summary: fields.summary, keep }
      }
      case 'clock': {
        const match = typeof plain === 'string' ? /^\+([1-9][0-9]{0,5})([dhm])$/.exec(plain.trim()) : null
        if (!match) return fail(scriptBadClock(describe(value)), value)
        return { kind, ms: Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS], text: plain as string }
      }
    }
  }

  /** `tool_calls:` as recorded calls with ids `call_<turn>_<n>`; `undefined` when one is malformed (reported). */
  private toolCalls(node: Node | null | undefined, fail: Fail): ScriptToolCall[] | undefined {
    if (node === undefined || node === null || (isScalar(node) && node.value === null)) return []
    if (!isSeq(node)) return fail(scriptWrongType('tool_calls', 'a list of { name, arguments }', describe(node)), node)
    const calls: ScriptToolCall[] = []
    let ok = true
    node.items.forEach((item, n) => {
      const key = `tool_calls[${n}]`
      const fields = this.fields(item as Node, key, ['name', 'arguments'], fail)
      if (!fields) return (ok = false)
      if (typeof fields.name !== 'string' || !fields.name) {
        fail(scriptWrongType(`${key}.name`, 'a tool name', describeValue(fields.name)), fieldNode(item as Node, 'name') ?? item)
        return (ok = false)
      }
      const args = argumentsOf(fields.arguments)
      if (typeof args !== 'string') {
        fail(args, fieldNode(item as Node, 'arguments'))
        return (ok = false)
      }
      calls.push({ id: `call_${this.requests}_${n + 1}`, type: 'function', function: { name: fields.name, arguments: args } })
    })
    if (!ok) return undefined
    for (const call of calls) this.lastCall.set(call.function.name, call.id)
    this.pending = [...calls]
    return calls
  }

  /** At the end of the script: the request after a last result must not leave a call unanswered either. */
  finish(): void {
    if (this.openResult) this.unanswered(this.openResult.node, this.openResult.item)
  }

  private unanswered(node: unknown, item: string): void {
    if (!this.pending.length) return
    this.report(scriptUnanswered(this.pending.map((call) => `${call.function.name} (${call.id})`)), node, item)
    this.pending = []
  }

  /** A turn's mapping value as plain data, its keys checked against `allowed`; `undefined` when it is not a mapping (reported). */
  private fields(node: Node | null | undefined, key: string, allowed: readonly string[], fail: Fail): Record<string, unknown> | undefined {
    if (!isMap(node)) return fail(scriptWrongType(key, `a mapping with ${allowed.join(' and ')}`, describe(node)), node)
    let ok = true
    for (const pair of node.items) {
      if (!allowed.includes(keyOf(pair))) {
        fail(scriptUnknownKey(keyOf(pair), allowed), pair.key)
        ok = false
      }
    }
    return ok ? this.plain(node) as Record<string, unknown> : undefined
  }

  private plain(node: Node | null | undefined): unknown {
    if (node === undefined || node === null) return undefined
    return node.toJS(this.doc)
  }
}

/** A call's `arguments` as the JSON text recorded (default `{}`), or the problem. */
function argumentsOf(value: unknown): string | CliMessage {
  if (value === undefined || value === null) return '{}'
  if (isPlainObject(value)) return JSON.stringify(value)
  if (typeof value !== 'string') return scriptBadArguments(`found ${describeValue(value)}`)
  let parsed: unknown
  try {
    parsed = JSON.parse(value)
  } catch (error) {
    return scriptBadArguments(`the text is not JSON (${(error as Error).message})`)
  }
  return isPlainObject(parsed) ? value : scriptBadArguments(`the JSON text holds ${describeValue(parsed)}, not an object`)
}

function fieldNode(node: Node | null | undefined, key: string): Node | undefined {
  return isMap(node) ? (node.get(key, true) as Node | undefined) ?? undefined : undefined
}

function keyOf(pair: Pair<unknown, unknown>): string {
  return isScalar(pair.key) ? String(pair.key.value) : String(pair.key)
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function describe(node: Node | null | undefined): string {
  if (node === undefined || node === null) return 'nothing'
  if (isMap(node)) return 'a mapping'
  if (isSeq(node)) return 'a list'
  if (isScalar(node)) return describeValue(node.value)
  return 'an alias'
}

function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'nothing'
  if (Array.isArray(value)) return 'a list'
  if (typeof value === 'string') return `a text ${JSON.stringify(value.length > 40 ? value.slice(0, 40) + '…' : value)}`
  if (typeof value === 'object') return 'a mapping'
  return `a ${typeof value} (${String(value)})`
}
