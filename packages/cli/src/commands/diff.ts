/**
 * `dsh-prompt diff <a.yml> <b.yml> [--agent id] [--format f]` and `dsh-prompt diff <a.yml> --agent x
 * --agent y`: whether two requests share a byte-identical prefix, part by part, and where they stop
 * sharing it; with `--format`, part by part in the order that format's provider hashes them, and the
 * first break of the two cache streams. Exit status as diff(1): 0 identical, 1 different, 2 trouble.
 * @module
 */
import { bootDeployment, type BootedDeployment as Booted } from 'dsh-boot'
import { compareSides, PART_TITLES, PIECE_KINDS, type Comparison, type PartDiff, type Side, type StreamComparison, type StreamSpot } from '../comparison.js'
import { diffArguments, EXIT } from '../errors.js'
import { bootOptionsOf, type CommonOptions } from '../options.js'
import type { Output } from '../output.js'
import { describeLocation } from '../prefix.js'
import { formatCount } from '../table.js'
import { loadTokenizer } from '../tokens.js'
import { describeTarget, pickTarget, viewOf } from '../view.js'
import { terminalSafe } from 'dsh-loader'
import { wireFormat } from '../stream.js'

/** Options of `diff`. */
export interface DiffOptions extends CommonOptions {
  /** `--agent`, given up to twice. */
  agent?: string[]
  /** `--format`: compare in this wire format's hash order, with the cache streams. */
  format?: string
}

/** Runs `diff` on one or two files; resolves to 0 (identical) or 1 (different). */
export async function diffCommand(files: readonly string[], options: DiffOptions, output: Output): Promise<number> {
  const agents = options.agent ?? []
  const twoFiles = files.length === 2 && agents.length <= 2
  const twoAgents = files.length === 1 && agents.length === 2
  if (!twoFiles && !twoAgents) throw diffArguments(files.length, agents.length)
  const format = wireFormat(options.format)
  const boot = (file: string) => bootDeployment(file, bootOptionsOf(options, output))
  const tokenizer = loadTokenizer()
  const booted: Booted[] = []
  try {
    for (const file of twoFiles ? files : files.slice(0, 1)) booted.push(await boot(file))
    const [bootA, bootB] = twoFiles ? booted : [booted[0], booted[0]]
    const agentA = agents[0]
    const agentB = twoFiles ? agents[1] ?? agents[0] : agents[1]
    const side = async (b: Booted, id: string | undefined, letter: 'a' | 'b'): Promise<Side> => {
      const target = pickTarget(b, id)
      const view = await viewOf(b, target, undefined)
      return { booted: b, view, label: `${letter}/${b.deployment.displayFile.replace(/^\/+/, '')}${target.agent ? ` (agent ${terminalSafe(target.agent.id)})` : ''}` }
    }
    const a = await side(bootA, agentA, 'a')
    const b = await side(bootB, agentB, 'b')
    const comparison = compareSides(a, b, await tokenizer, format)
    if (options.json) output.json(diffJson(a, b, comparison))
    else printDiff(output, a, b, comparison)
    return comparison.identical ? EXIT.ok : 1
  } finally {
    for (const item of booted) await item.dispose()
  }
}

function printDiff(output: Output, a: Side, b: Side, comparison: Comparison): void {
  const c = output.colors
  output.line(c.bold(`# A: ${a.booted.deployment.displayFile}: ${describeTarget(a.view.target)}`))
  output.line(c.bold(`# B: ${b.booted.deployment.displayFile}: ${describeTarget(b.view.target)}`))
  output.line(`tokens: o200k_base; offsets count from the start of each part (bytes: UTF-8; tools: the JSON of the request's tools field)`)
  if (comparison.stream) printStream(output, comparison.stream)
  for (const part of comparison.parts) {
    output.line()
    const title = c.bold(PART_TITLES[part.part])
    if (part.identical) {
      output.line(`${title}: ${c.green('identical')} (${formatCount(part.bytes[0])} bytes)`)
      continue
    }
    output.line(`${title}: ${c.red('differs')} from byte ${formatCount(part.firstByte!)} (token ${formatCount(part.firstToken ?? 0)}); A ${formatCount(part.bytes[0])} bytes, B ${formatCount(part.bytes[1])} bytes`)
    output.line(`  A: ${terminalSafe(describeLocation(part.at![0], PIECE_KINDS[part.part]))}`)
    output.line(`  B: ${terminalSafe(describeLocation(part.at![1], PIECE_KINDS[part.part]))}`)
    output.line(part.summary ?? colorPatch(part.patch ?? '', c).replace(/\n$/, ''))
  }
  output.line()
  const [modelA, modelB] = comparison.models
  if (modelA !== modelB) output.line(`model: A ${terminalSafe(modelA ?? '(none)')}, B ${terminalSafe(modelB ?? '(none)')}: requests to different models never share a cached prefix`)
  const differing = comparison.parts.filter((p) => !p.identical).map((p) => PART_TITLES[p.part])
  output.line(comparison.identical
    ? c.green('request prefix: byte-identical (system prompt, tools and runtime context)')
    : c.red(`request prefix: differs in ${differing.join(', ')}; a provider's cached prefix is reused only up to the first differing byte`))
}

const REGION_NAMES: Readonly<Record<string, string>> = { tools: 'tools', system: 'system prompt', messages: 'messages' }

/** The cache streams compared: how far they agree, and what each side has where they first differ. */
function printStream(output: Output, stream: StreamComparison): void {
  const c = output.colors
  const order = `${stream.format}: the model, then ${stream.order.map((region) => REGION_NAMES[region]).join(', then ')}`
  const [bytesA, bytesB] = stream.bytes
  if (!stream.firstBreak) {
    output.line(`cache stream (${order}): ${c.green('byte-identical')} (${formatCount(bytesA)} bytes)`)
    return
  }
  output.line(`cache stream (${order}): ${c.red('the same for the first')} ${formatCount(stream.sharedBytes)} bytes (A ${formatCount(bytesA)} bytes, B ${formatCount(bytesB)} bytes); first break at part ${stream.firstBreak.position}:`)
  output.line(`  A: ${terminalSafe(describeSpot(stream.firstBreak.a))}`)
  output.line(`  B: ${terminalSafe(describeSpot(stream.firstBreak.b))}`)
}

/** A side's part at the first break in words: `tool "bash" (dsh-plugin-shell, global)`, `system prompt, section "x" (...)`. */
function describeSpot(spot: StreamSpot): string {
  if (spot.kind === 'end') return 'the end of the stream (the other side goes on)'
  const origin = (owner: string | null, layer: string | null) => owner === null ? '' : ` (${!layer || layer === owner ? owner : `${owner}, ${layer}`})`
  if (spot.kind === 'model') return `the model ${JSON.stringify(spot.name)}`
  if (spot.kind === 'tool') return `tool ${JSON.stringify(spot.name)}${origin(spot.owner, spot.layer)}`
  if (spot.where === 'end') return `${spot.name}, at the end of its text (the other side goes on)`
  const piece = spot.piece ? `, ${spot.where === 'before' ? 'just before ' : ''}${spot.piece.kind} ${JSON.stringify(spot.piece.name)}${origin(spot.piece.owner, spot.piece.layer)}` : ''
  return `${spot.name}${piece}`
}

/** A unified diff with its headers bold, hunks cyan, additions green and removals red (identity without colours). */
export function colorPatch(patch: string, c: Output['colors']): string {
  return patch.split('\n').map((line) => {
    if (line.startsWith('+++') || line.startsWith('---')) return c.bold(line)
    if (line.startsWith('@@')) return c.cyan(line)
    if (line.startsWith('+')) return c.green(line)
    if (line.startsWith('-')) return c.red(line)
    return line
  }).join('\n')
}

function diffJson(a: Side, b: Side, comparison: Comparison) {
  const side = (s: Side) => ({ file: s.booted.deployment.displayFile, agent: s.view.target.agent?.id ?? null, model: s.view.target.agent?.model ?? null })
  const part = (p: PartDiff) => ({
    identical: p.identical,
    bytes: p.bytes,
    firstByte: p.firstByte ?? null,
    firstToken: p.firstToken ?? null,
    at: p.at ? p.at.map((location) => ({ where: location.where, ...(location.piece ?? {}) })) : null,
    patch: p.patch ?? null,
    ...(p.summary === undefined ? {} : { summary: p.summary }),
  })
  return {
    ok: true,
    command: 'diff',
    identical: comparison.identical,
    encoding: 'o200k_base',
    a: side(a),
    b: side(b),
    ...(comparison.stream ? {
      format: comparison.stream.format,
      order: comparison.parts.map((p) => p.part),
      stream: { bytes: comparison.stream.bytes, sharedBytes: comparison.stream.sharedBytes, firstBreak: comparison.stream.firstBreak },
    } : {}),
    parts: Object.fromEntries(comparison.parts.map((p) => [p.part, part(p)])),
  }
}
