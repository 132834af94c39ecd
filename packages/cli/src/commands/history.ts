/**
 * `dsh-prompt history <ledger.jsonl> [--head <hash>] [--json]`: what the model saw at each request of a
 * conversation kept as a ledger (R-LEDGER), and the per-section diff between consecutive system-prompt
 * versions. A ledger that `readLedger` refuses exits 1 with the problem naming its line. Versions that
 * record their parts (ledger format version 2) are compared section by section by name, with owners,
 * layers and the cache break (`history-parts.ts`); an older ledger's versions are text only, so they are
 * compared block by block at blank lines (a section with a blank line in it counts as several).
 * @module
 */
import { readLedger, type LedgerEpoch, type LedgerHeader, type LedgerLine, type ParsedLedger, type Usage } from 'dsh-agent'
import { codeOf, DEFAULT_MAX_FILE_BYTES, readRegularFile, terminalSafe } from 'dsh-loader'
import { boundedArrayDiff, boundedPatch, MAX_DIFF_EDITS } from '../bounded-diff.js'
import { EXIT, ledgerNotRead, ledgerRefused, ledgerUnreadable } from '../errors.js'
import type { CommonOptions } from '../options.js'
import type { Output } from '../output.js'
import { formatCount } from '../table.js'
import { colorPatch } from './diff.js'
import { epochLines, epochReported } from './history-epochs.js'
import { comparableByParts, describeOrigin, partChanges, versionBreak } from './history-parts.js'

/** Options of `history`. */
export interface HistoryOptions extends CommonOptions {
  /** `--head <hash>`: the last line's hash as the writer kept it; a ledger that ends before it is refused. */
  head?: string
}

/** One request of the conversation: what was added for it, and the replies it got. */
export interface HistoryTurn {
  /** Counts requests from 1. */
  turn: number
  /** The system-prompt version the request was sent under. */
  promptVersion: number
  /** The entries added for the request (input, tool results, a new prompt version, a snapshot). */
  added: LedgerLine[]
  /** The assistant replies recorded after it. */
  replies: LedgerLine[]
  /** On an epoch's first request: the entries of the epoch's baseline, sent with it (the kept turns' replies among them). */
  carried?: LedgerLine[]
}

/** How one section (a blank-line-separated block) of a version relates to the version before it. */
export interface SectionChange {
  kind: 'unchanged' | 'changed' | 'added' | 'removed'
  /** The 1-based number of the (first) section in the earlier version, `null` for an added one. */
  from: number | null
  /** The 1-based number of the (first) section in the later version, `null` for a removed one. */
  to: number | null
  /** How many sections in a row (more than 1 only for `unchanged`). */
  count: number
  /** A unified diff of the section (absent for `unchanged`, and when more lines differ than a diff is worked out for). */
  patch?: string
  /** In the patch's place when more than `MAX_DIFF_EDITS` lines differ: says so, and how large each side is. */
  summary?: string
  /**
   * `position` when more than `MAX_DIFF_EDITS` sections were added or removed, so the versions were
   * compared section by section in order (section n with section n) rather than matched up.
   */
  aligned?: 'position'
}

/**
 * The turns of a ledger: a turn starts at the first entry after a reply (or at the start). The
 * entries an epoch starts with (its baseline: the opening, the re-anchor, the summary, the snapshot, the
 * kept turns) were sent as one, with the epoch's first request: they are that turn's `carried`.
 */
export function turnsOf(entries: readonly LedgerLine[], epochs: ReadonlyArray<{ at: number; baseline: number }> = []): HistoryTurn[] {
  const baseline = new Set(epochs.flatMap((epoch) => Array.from({ length: epoch.baseline }, (_, i) => epoch.at + i)))
  const turns: HistoryTurn[] = []
  let current: HistoryTurn | undefined
  let carried: LedgerLine[] = []
  const open = (promptVersion: number) => {
    current = { turn: turns.length + 1, promptVersion, added: [], replies: [], ...(carried.length ? { carried } : {}) }
    carried = []
    turns.push(current)
    return current
  }
  entries.forEach((item, index) => {
    if (baseline.has(index)) {
      carried.push(item)
      current = undefined
      return
    }
    if (item.source !== 'assistant' && (!current || current.replies.length)) current = undefined
    const turn = current ?? open(item.promptVersion)
    if (item.source === 'assistant') turn.replies.push(item)
    else {
      turn.added.push(item)
      turn.promptVersion = item.promptVersion
    }
  })
  // A ledger that ends with a baseline: the epoch's first request is still to be sent.
  if (carried.length) open(carried.at(-1)!.promptVersion)
  return turns
}

/** A rendered system prompt split where the render joins sections (one blank line). */
export function blocksOf(text: string): string[] {
  return text === '' ? [] : text.split('\n\n')
}

/**
 * The section-by-section changes from version `a` to version `b` (numbered `va` and `vb` in the
 * patches). Sections are matched up with a bounded diff; past {@link MAX_DIFF_EDITS} sections added or
 * removed, they are compared by position (each change says `aligned: 'position'`). Each changed
 * section's patch is bounded too (a `summary` past the bound): the cost stays linear in the versions' size.
 */
export function sectionChanges(a: string, b: string, va: number, vb: number): SectionChange[] {
  const changes: SectionChange[] = []
  const patch = (from: string, to: string, left: string, right: string) =>
    boundedPatch(left, right, from === '' ? '' : from + '\n', to === '' ? '' : to + '\n')
  const blocksA = blocksOf(a)
  const blocksB = blocksOf(b)
  const matched = boundedArrayDiff(blocksA, blocksB)
  const parts = matched ?? [{ value: blocksA, removed: true, added: false, count: blocksA.length }, { value: blocksB, added: true, removed: false, count: blocksB.length }]
  const aligned = matched ? {} : { aligned: 'position' as const }
  let i = 1
  let j = 1
  for (let k = 0; k < parts.length; k++) {
    const part = parts[k]
    if (!part.added && !part.removed) {
      changes.push({ kind: 'unchanged', from: i, to: j, count: part.value.length })
      i += part.value.length
      j += part.value.length
      continue
    }
    const removed = part.removed ? part.value : []
    const added = part.added ? part.value : parts[k + 1]?.added ? parts[++k].value : []
    for (let p = 0; p < Math.max(removed.length, added.length); p++) {
      const old = removed[p]
      const now = added[p]
      if (old !== undefined && now !== undefined) {
        if (!matched && old === now) changes.push({ kind: 'unchanged', from: i + p, to: j + p, count: 1, ...aligned })
        else changes.push({ kind: 'changed', from: i + p, to: j + p, count: 1, ...patch(old, now, `v${va} section ${i + p}`, `v${vb} section ${j + p}`), ...aligned })
      } else if (old !== undefined) {
        changes.push({ kind: 'removed', from: i + p, to: null, count: 1, ...patch(old, '', `v${va} section ${i + p}`, `v${vb} (removed)`), ...aligned })
      } else {
        changes.push({ kind: 'added', from: null, to: j + p, count: 1, ...patch('', now, `v${va} (none)`, `v${vb} section ${j + p}`), ...aligned })
      }
    }
    i += removed.length
    j += added.length
  }
  return changes
}

/** Runs `history` on one ledger file; resolves to 0, or throws a refusal that exits 1. */
export async function historyCommand(file: string, options: HistoryOptions, output: Output): Promise<number> {
  let text: string
  try {
    // The check every file the CLI reads has (a regular file within --max-file-size, before it is opened).
    text = (await readRegularFile(file, options.maxFileSize ?? DEFAULT_MAX_FILE_BYTES, { what: `the ledger ${file}`, raise: '--max-file-size <bytes>' })).toString('utf8')
  } catch (error) {
    const code = codeOf(error)
    if (code === 'LOADER_NOT_A_FILE' || code === 'LOADER_FILE_TOO_LARGE') throw ledgerNotRead(file, error as Error & { code: string })
    throw ledgerUnreadable(file, error)
  }
  let ledger: ParsedLedger
  try {
    ledger = readLedger(text, options.head === undefined ? {} : { head: options.head })
  } catch (error) {
    throw ledgerRefused(file, error as Error)
  }
  const turns = turnsOf(ledger.entries, ledger.epochs)
  const versions = ledger.entries.filter((item) => item.source === 'system-prompt')
  if (options.json) output.json(historyJson(file, ledger, turns, versions))
  else printHistory(output, file, ledger, turns, versions)
  return EXIT.ok
}

/** A version's sections: its recorded parts, else its blocks at blank lines. */
const sectionCount = (item: LedgerLine) => item.sections?.length ?? blocksOf(item.content as string).length
const plural = (n: number, one: string, many = `${one}s`) => `${formatCount(n)} ${n === 1 ? one : many}`
const indent = (text: string, by: string) => text.split('\n').map((line) => line === '' ? '' : by + line).join('\n')
const bytes = (text: string) => Buffer.byteLength(text, 'utf8')

function describeHeader(header: LedgerHeader): string {
  const facts = [`model ${header.model}`, `promptChange ${header.promptChange}`]
  for (const key of ['provider', 'cwd', 'preset', 'parent'] as const) if (header[key] !== undefined) facts.push(`${key} ${header[key]}`)
  return `agent ${JSON.stringify(header.agent)} (${facts.join(', ')})`
}

/** A usage record in words; a figure the provider did not report says so. */
export function describeUsage(usage: Usage): string {
  const figure = (value: number | null) => value === null ? 'not reported' : formatCount(value)
  return `usage: input ${figure(usage.inputTokens)}, cached read ${figure(usage.cachedReadTokens)}, cache write ${figure(usage.cacheWriteTokens)}, output ${figure(usage.outputTokens)}`
}

function printHistory(output: Output, file: string, ledger: ParsedLedger, turns: HistoryTurn[], versions: LedgerLine[]): void {
  const c = output.colors
  const safe = (value: string) => terminalSafe(value)
  const body = (value: string) => indent(terminalSafe(value, 'lines'), '      ')
  const lines = ledger.entries.length + ledger.epochs.length + 1
  // Each compaction's epoch, shown before the turn that holds the first entry of its baseline.
  const opens = new Map<LedgerLine, LedgerEpoch>(ledger.epochs.map((epoch) => [ledger.entries[epoch.at], epoch]))
  output.line(c.bold(`# ${safe(file)}: ${safe(describeHeader(ledger.header))}`))
  output.line(`${plural(lines, 'line')}, hash chain intact (head ${ledger.head.slice(0, 12)}…); ${plural(versions.length, 'prompt version')}; ${plural(turns.length, 'request')}`)
  output.line(ledger.parts
    ? 'sections are compared by the parts each version records (name, owner, layer, byte range, hash)'
    : `this ledger carries no parts (format version ${ledger.header.version}): sections are compared at blank lines, since the render joins sections with one blank line and does not mark them, so a section with a blank line in it counts as several`)
  for (const turn of turns) {
    const all = [...turn.carried ?? [], ...turn.added, ...turn.replies]
    for (const epoch of all.flatMap((item) => opens.get(item) ?? [])) {
      output.line()
      for (const [index, line] of epochLines(ledger, epoch, turn.turn).entries()) output.line(index === 0 ? c.bold(safe(line)) : `  ${safe(line)}`)
    }
    output.line()
    output.line(c.bold(`request ${turn.turn} (${all.length === 1 ? `line ${all[0].line}` : `lines ${all[0].line}-${all.at(-1)!.line}`}), prompt version ${turn.promptVersion}`))
    if (turn.carried) output.line(`  = the epoch's baseline, sent with this request (${plural(turn.carried.length, 'entry', 'entries')}, lines ${turn.carried[0].line}-${turn.carried.at(-1)!.line}):`)
    for (const item of [...turn.carried ?? [], ...turn.added]) {
      if (item.source === 'assistant') {
        printReply(item, 'kept assistant reply')
      } else if (item.source === 'system-prompt') {
        const content = item.content as string
        if (content === '') {
          output.line(`  + system prompt cleared (version ${item.promptVersion}, line ${item.line}): it renders no text, so no earlier version is sent any more`)
          continue
        }
        const previous = versions[item.promptVersion - 2]
        const shape = `${plural(bytes(content), 'byte')}, ${plural(sectionCount(item), 'section')}`
        if (!previous || previous.content === '') {
          output.line(`  + system prompt, version ${item.promptVersion} (line ${item.line}, ${shape}):`)
          for (const part of item.sections ?? []) output.line(`      [${safe(part.name)} (${safe(describeOrigin(part))}), ${plural(part.end - part.start, 'byte')}]`)
          output.line(body(content))
          continue
        }
        const replaced = ledger.header.promptChange === 'replace' ? ` (promptChange replace: from this request on it is the only system prompt, at the head of each request)` : ''
        output.line(`  + system prompt, version ${item.promptVersion} (line ${item.line}, ${shape})${replaced}, per section against version ${previous.promptVersion}:`)
        if (comparableByParts(previous, item)) {
          const cut = versionBreak(previous, item)
          if (cut) output.line(`      first change: section ${safe(JSON.stringify(cut.section))} (${safe(describeOrigin(cut))}): ${safe(cut.cause)}`)
          for (const change of partChanges(previous, item)) {
            const was = change.was ? `; was ${describeOrigin(change.was)}` : ''
            const word = change.kind === 'changed' ? c.yellow('changed') : change.kind === 'added' ? c.green('added') : change.kind === 'removed' ? c.red('removed') : change.kind
            output.line(`      ${safe(change.section)} (${safe(describeOrigin(change) + was)}): ${word}`)
            if (change.summary !== undefined) output.line(`        ${change.summary}`)
            else if (change.patch !== undefined) output.line(indent(colorPatch(terminalSafe(change.patch, 'lines'), c).replace(/\n$/, ''), '        '))
          }
          continue
        }
        const changes = sectionChanges(previous.content as string, content, previous.promptVersion, item.promptVersion)
        if (changes[0]?.aligned) output.line(`      (more than ${formatCount(MAX_DIFF_EDITS)} sections were added or removed: section n is compared with section n)`)
        for (const change of changes) {
          if (change.kind === 'unchanged') {
            output.line(`      ${change.count === 1 ? `section ${change.to}` : `sections ${change.to}-${change.to! + change.count - 1}`}: unchanged`)
            continue
          }
          const where = change.kind === 'removed' ? `section ${change.from} of version ${previous.promptVersion}` : `section ${change.to}`
          output.line(`      ${where}: ${change.kind === 'changed' ? c.yellow('changed') : change.kind === 'added' ? c.green('added') : c.red('removed')}`)
          output.line(change.summary !== undefined ? `        ${change.summary}` : indent(colorPatch(terminalSafe(change.patch!, 'lines'), c).replace(/\n$/, ''), '        '))
        }
      } else if (item.source === 'tool') {
        output.line(`  + tool result for call ${safe(item.tool_call_id ?? '')}${item.name === undefined ? '' : ` (${safe(item.name)})`} (line ${item.line}):`)
        output.line(body(item.content as string))
      } else {
        output.line(`  + ${item.source === 'user' ? 'user input' : 'runtime context'} (line ${item.line}):`)
        output.line(body(item.content as string))
      }
    }
    for (const reply of turn.replies) printReply(reply, 'assistant reply')
  }

  function printReply(reply: LedgerLine, what: string): void {
    output.line(`  < ${what} (line ${reply.line}):`)
    if (reply.content !== null) output.line(body(reply.content as string))
    for (const call of reply.tool_calls ?? []) {
      const [name, input] = call.type === 'custom' ? [call.custom.name, call.custom.input] : [call.function.name, call.function.arguments]
      output.line(`      tool call ${safe(name)} (id ${safe(call.id)}): ${safe(input)}`)
    }
    if (reply.usage) output.line(c.dim(`      ${describeUsage(reply.usage)}`))
  }
}

function historyJson(file: string, ledger: ParsedLedger, turns: HistoryTurn[], versions: LedgerLine[]) {
  const message = ({ hash: _hash, promptVersion: _version, ...item }: LedgerLine) => item
  return {
    ok: true,
    command: 'history',
    file,
    header: ledger.header,
    lines: ledger.entries.length + ledger.epochs.length + 1,
    head: ledger.head,
    epochs: ledger.epochs.map(({ hash: _hash, ...epoch }) => {
      const mark = epoch as LedgerEpoch
      return { ...epoch, firstRequest: turns.find((turn) => turn.carried?.[0] === ledger.entries[mark.at])?.turn ?? null, reported: epochReported(ledger, mark) ?? null }
    }),
    parts: ledger.parts,
    promptVersions: versions.map((item, index) => {
      const previous = index === 0 || versions[index - 1].content === '' || item.content === '' ? undefined : versions[index - 1]
      const byParts = item.sections !== undefined && (previous === undefined || comparableByParts(previous, item))
      return {
        version: item.promptVersion,
        line: item.line,
        bytes: bytes(item.content as string),
        sections: sectionCount(item),
        comparedBy: byParts ? 'parts' : 'blank-lines',
        parts: item.sections ?? null,
        changes: previous === undefined ? null
          : byParts ? partChanges(previous, item)
          : sectionChanges(previous.content as string, item.content as string, previous.promptVersion, item.promptVersion),
        break: previous !== undefined && byParts ? versionBreak(previous, item) : null,
      }
    }),
    turns: turns.map((turn) => ({
      turn: turn.turn,
      promptVersion: turn.promptVersion,
      ...(turn.carried ? { carried: turn.carried.map(message) } : {}),
      added: turn.added.map(message),
      replies: turn.replies.map(message),
    })),
  }
}
