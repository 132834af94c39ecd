/**
 * `dsh-prompt replay <deployment> --script <file> [--agent id] [--format f] [--policy append|replace]
 * [--ledger out.jsonl] [--html out.html] [--json]`: plays a scripted conversation against one agent of a deployment and reports every request
 * (R-CLI-7): how many of its bytes repeat the previous request, what the provider should serve from
 * cache, and each break with its cause. {@link replayDeployment} does the work and returns the data
 * (what `--json` prints, plus what a picture needs); the command only prints it.
 * @module
 */
import { writePage } from '../html/page.js'
import { replayPage } from '../html/replay-page.js'
import { writeFile } from 'node:fs/promises'
import { isAbsolute, relative } from 'node:path'
import { epochLine, exportLedger, WIRE_FORMATS, type Agent, type Epoch, type PromptChangePolicy, type WireFormat } from 'dsh-agent'
import { bootDeployment, type BootedDeployment, type BootOptions } from 'dsh-boot'
import type { ToolRegistry } from 'dsh-tools'
import { terminalSafe } from 'dsh-loader'
import { normalizeUsage, type CacheProvider, type CacheReport, type Usage, type UsageFormat } from 'dsh-wire'
import { mismatchReason } from 'dsh-wire/internal'
import {
  CliError, ledgerUnwritable, replayAgentGone, replayNeedsAgent, replayTurnFailed, scriptProblemLine, unknownFormat, type ScriptProblem,
} from '../errors.js'
import { bootOptionsOf, type CommonOptions } from '../options.js'
import type { Output } from '../output.js'
import { withReplayClock } from '../replay-clock.js'
import { readReplayScript, type ReplayScript, type ScriptTurn } from '../replay-script.js'
import { replayEpoch } from '../replay-session.js'
import { plural } from '../table.js'
import { Owners } from '../owners.js'
import { pickTarget } from '../view.js'
import { printReplay } from './replay-print.js'
import type { ReplayResult, ReplayTurn } from './replay-result.js'

export { printReplay }
export type { ReplayResult, ReplayTurn }

/** Options of {@link replayDeployment}. */
export interface ReplayOptions {
  /** The agent to play (default: the first of `agents:`). */
  agent?: string
  /** The wire format of every request (default `openai-chat`). */
  format?: WireFormat
  /** The agent's `promptChange` policy for the replay (default: the agent's own). */
  policy?: PromptChangePolicy
  /** How the deployment boots (log level, environment, ...). */
  boot?: BootOptions
  /** Where the replay's clock starts, in milliseconds since the epoch (default: the system time). */
  start?: number
  /** Also export the agent's conversation as a ledger (`exportLedger`) into `result.ledger`, once the script has played. */
  ledger?: boolean
  /** The provider family whose caching rules every request follows (`step({ cacheRules })`; default: the agent's provider). */
  cacheRules?: CacheProvider
  /**
   * Sends each request to a provider or engine and resolves to the usage object it reported, in its
   * `shape` (`normalizeUsage`). Each turn then carries the reported cached tokens and, when they differ
   * from the prediction, the family's reason; the usage is also recorded with the script's next reply.
   */
  send?: (request: ReplayRequest) => Promise<{ usage: unknown; shape: UsageFormat }>
}

/** One request of a replay, as `ReplayOptions.send` gets it. */
export interface ReplayRequest {
  format: WireFormat
  /** The request body, `JSON.stringify`'d as dsh built it. */
  body: string
  /** The request's number in the replay, from 1. */
  turn: number
}


/**
 * Boots `file`, plays `script` against one agent and returns the report of every request. The replay
 * runs under its own clock (`Date.now()` starts at `options.start` and jumps at each `clock:` turn),
 * installed before the deployment loads and restored when the replay ends, also when it fails. A turn
 * that fails (a row change the loader refuses, a step that fails) is a `CLI_REPLAY_TURN_FAILED` error
 * naming the script's line and turn; everything is unloaded either way.
 */
export async function replayDeployment(file: string, script: ReplayScript, options: ReplayOptions = {}): Promise<ReplayResult> {
  const format = options.format ?? 'openai-chat'
  return withReplayClock(options.start, async (clock) => {
    const booted = await bootDeployment(file, options.boot)
    try {
      let agent = agentOf(booted, options.agent)
      if (options.policy !== undefined && options.policy !== agent.promptChange) agent = await withPolicy(booted, agent, options.policy)
      const result: ReplayResult = { format, turns: [], file: booted.deployment.displayFile, script: script.file, agent: agent.id, policy: agent.promptChange }
      let changes: string[] = []
      const hidden = new Map<string, () => void>()
      // With `send`: the usage the provider reported for the latest request, recorded with the script's next reply.
      let reported: Usage | undefined
      const rules = options.cacheRules === undefined ? {} : { cacheRules: options.cacheRules }
      // The epochs opened, by the report of their first request: their reported cost is read once the script has played.
      const epochs = new Map<ReplayTurn, Epoch>()
      const request = async (turn: ScriptTurn, input?: string) => {
        const fork = turn.kind === 'fork' ? await agent.fork({ kind: turn.fork, instruction: turn.instruction, format }) : undefined
        const step = fork ? fork.result
          : turn.kind === 'subagent' ? await subagentStep(agent, turn, format) : await agent.stepDetailed(input, { format, ...rules })
        // Owners as explain shows them: the row id of the plugin (rows may have come and gone since the boot).
        const owners = new Owners(booted.ctx, booted.deployment)
        const owner = (name: string | null) => name === null ? null : owners.plugin(name)
        const report = turnReport(step.report, result.turns.length + 1, turn, changes, owner)
        if (fork) {
          const parity = fork.parity()
          report.fork = { kind: fork.kind, parity: parity === null ? null : { ...parity, owner: owner(parity.owner) } }
        }
        if (step.epoch) epochs.set(report, step.epoch)
        result.turns.push(report)
        // What changed before a fork or a sub-agent still comes before the agent's own next request.
        const side = turn.kind === 'fork' || turn.kind === 'subagent'
        if (!side) changes = []
        if (options.send) {
          const answer = await options.send({ format, body: step.body, turn: report.turn })
          const usage = normalizeUsage(answer.shape, answer.usage)
          report.reportedCachedTokens = usage.cachedReadTokens
          const reason = mismatchReason(step.report.provider, usage.cachedReadTokens, {
            requestTokens: report.requestTokens, predictedCachedTokens: report.predictedCachedTokens, sincePrevious: undefined,
          })
          if (reason !== undefined) report.mismatch = reason
          reported = side ? reported : usage
        }
      }
      for (const turn of script.turns) {
        const place = `${script.file}:${turn.line}`
        const item = `turns[${turn.index}] (${turn.kind === 'add-row' || turn.kind === 'remove-row' ? 'row' : turn.kind})`
        try {
          switch (turn.kind) {
            case 'user':
              await request(turn, turn.text)
              break
            case 'assistant':
              agent.record({ role: 'assistant', content: turn.text, ...(turn.toolCalls.length ? { tool_calls: turn.toolCalls } : {}) }, reported ? { usage: reported } : {})
              reported = undefined
              break
            case 'tool':
              agent.record({ role: 'tool', tool_call_id: turn.callId, name: turn.name, content: turn.result })
              if (turn.request) await request(turn)
              break
            case 'change':
              await booted.deployment.reconfigure(turn.row, turn.config)
              changes.push(`change ${turn.row}`)
              break
            case 'add-row': {
              const added = await booted.deployment.addRow(turn.row as { name: string })
              changes.push(`add ${added?.id ?? String(turn.row.id ?? turn.row.name)}`)
              break
            }
            case 'remove-row':
              await booted.deployment.removeRow(turn.row)
              changes.push(`remove ${turn.row}`)
              break
            case 'clock':
              clock.advance(turn.ms)
              changes.push(`clock ${turn.text}`)
              break
            case 'fork':
            case 'subagent':
              await request(turn)
              break
            case 'tools':
              changes.push(...toggleTools(agent, hidden, turn))
              break
            case 'compact':
              // The epoch and its re-anchor's predicted cost show on the next request's row.
              changes.push(epochLine(await agent.compact({ summary: turn.summary, keep: { turns: turn.keep }, format })))
              break
          }
        } catch (error) {
          if (CliError.is(error)) throw error
          throw replayTurnFailed(place, item, error)
        }
        if (agent.disposed) throw replayAgentGone(place, item, agent.id)
      }
      for (const [report, epoch] of epochs) report.epoch = replayEpoch(epoch)
      if (options.ledger) result.ledger = exportLedger(agent)
      return result
    } finally {
      await booted.dispose()
    }
  })
}

/** Hides (a restriction of the agent's scope per tool) and shows again the tools a `tools:` turn names; returns what it changed, in words. */
function toggleTools(agent: Agent, hidden: Map<string, () => void>, turn: { hide: string[]; show: string[] }): string[] {
  const tools = agent.ctx.get('tools') as ToolRegistry
  for (const name of turn.hide) if (!hidden.has(name)) hidden.set(name, tools.restrict({ deny: [name] }))
  for (const name of turn.show) {
    hidden.get(name)?.()
    hidden.delete(name)
  }
  return [...turn.hide.map((name) => `hide ${name}`), ...turn.show.map((name) => `show ${name}`)]
}

/** The agent to play: `--agent`, else the first of `agents:`; a file without agents is a usage error. */
function agentOf(booted: BootedDeployment, id: string | undefined): Agent {
  const target = pickTarget(booted, id)
  if (!target.agent) throw replayNeedsAgent(booted.deployment.displayFile)
  return target.agent
}

/** The same agent (id, model, provider, cwd, preset, parent and start) under another `promptChange` policy: created anew before its first step. */
async function withPolicy(booted: BootedDeployment, agent: Agent, policy: PromptChangePolicy): Promise<Agent> {
  const { id, model, provider, cwd, preset, parent, start } = agent
  await agent.dispose()
  return booted.createAgent({ id, model, provider, cwd, preset, parent, promptChange: policy, ...(start === undefined ? {} : { start }) })
}

/**
 * A `subagent:` turn: the agent's sub-agent, started as the turn says, sends its task once and is disposed.
 * It works where its parent works: the parent's model, provider and cwd (`{{cwd}}`).
 */
async function subagentStep(agent: Agent, turn: Extract<ScriptTurn, { kind: 'subagent' }>, format: WireFormat) {
  const { model, provider, cwd } = agent
  const child = await agent.ctx.agents.create({ id: turn.id, model, provider, cwd, parent: agent, start: turn.start })
  try {
    return await child.stepDetailed(turn.task, { format })
  } finally {
    await child.dispose()
  }
}

function turnReport(report: CacheReport, turn: number, item: ScriptTurn, changes: string[], owner: (name: string | null) => string | null): ReplayTurn {
  return {
    turn,
    requestBytes: report.requestBytes,
    reusableBytes: report.reusableBytes,
    reusableTokens: report.reusableTokens,
    predictedCachedTokens: report.predictedCachedTokens,
    breaks: report.breaks.map((b) => ({ ...b, owner: owner(b.owner) })),
    ...(report.limit !== undefined ? { limit: report.limit } : {}),
    requestTokens: report.requestTokens,
    provider: report.provider,
    tokenizer: report.tokenizer,
    item: item.index,
    line: item.line,
    changes: [...changes],
    ...(report.side ? { side: { kind: report.side.kind } } : {}),
    ...(item.kind === 'subagent' ? { side: { kind: 'subagent' }, subagent: { id: item.id, start: item.start } } : {}),
    ...(report.toolChanges ? { toolChanges: report.toolChanges.map((change) => ({ ...change, owner: owner(change.owner), ...(change.kept ? { kept: change.kept.map((kept) => ({ ...kept, owner: owner(kept.owner) })) } : {}) })) } : {}),
  }
}

// ---- the command ------------------------------------------------------------------------------

/** Options of `replay`, as commander parses them. */
export interface ReplayCommandOptions extends CommonOptions {
  script: string
  agent?: string
  format?: string
  policy?: PromptChangePolicy
  /** `--ledger <out.jsonl>`: where the played conversation's ledger is written. */
  ledger?: string
  /** `--html <out.html>`: write the picture (the timeline of reusable and new tokens per request) to this file. */
  html?: string
  /** `--max-turns <n>`: the most turns the script may hold (default 1000). */
  maxTurns?: number
}

/** Runs `replay`; resolves to the exit code (failures are thrown and reported by the caller). */
export async function replayCommand(file: string, options: ReplayCommandOptions, output: Output): Promise<number> {
  if (options.format !== undefined && !(WIRE_FORMATS as readonly string[]).includes(options.format)) throw unknownFormat(options.format, WIRE_FORMATS)
  let script: ReplayScript
  try {
    script = await readReplayScript(options.script, shownPath(options.script), {
      ...(options.maxFileSize === undefined ? {} : { maxBytes: options.maxFileSize }),
      yaml: { ...(options.maxYamlTokens === undefined ? {} : { tokens: options.maxYamlTokens }), ...(options.maxQuotedChars === undefined ? {} : { doubleQuotedChars: options.maxQuotedChars }) },
      ...(options.maxTurns === undefined ? {} : { maxTurns: options.maxTurns }),
    })
  } catch (error) {
    const problems = CliError.is(error) ? (error.details as { problems?: ScriptProblem[] }).problems : undefined
    if (!problems || !CliError.is(error)) throw error
    // Each problem on a line of its own, like a deployment's, then the one-line error; --json lists them.
    if (options.json) {
      output.json({ ok: false, exitCode: error.exitCode, error: { kind: error.kind, code: error.code, message: error.message, problems } })
      return error.exitCode
    }
    for (const problem of problems) output.error(terminalSafe(scriptProblemLine(problem)))
    throw error
  }
  const result = await replayDeployment(file, script, {
    agent: options.agent,
    format: options.format as WireFormat | undefined,
    policy: options.policy,
    boot: bootOptionsOf(options, output),
    ledger: options.ledger !== undefined,
  })
  const { ledger, ...report } = result
  if (options.ledger !== undefined) await writeLedger(options.ledger, ledger ?? '')
  if (options.html !== undefined) {
    writePage(options.html, replayPage(report, {
      title: `replay: ${report.file}`, subtitle: `agent ${JSON.stringify(report.agent)}, ${report.format}, promptChange ${report.policy}; script ${report.script}`,
    }))
  }
  if (options.json) {
    output.json({
      ok: true, command: 'replay', ...report, ...(options.ledger !== undefined ? { ledger: shownPath(options.ledger) } : {}),
      ...(options.html !== undefined ? { html: shownPath(options.html) } : {}),
    })
  } else if (options.html !== undefined) {
    output.line(`wrote ${terminalSafe(shownPath(options.html))}: the picture of ${plural(report.turns.length, 'request')}, ${plural(report.turns.reduce((n, t) => n + t.breaks.length, 0), 'break')}`)
  } else {
    printReplay(output, report)
    const lines = ledger ? ledger.split('\n').length - 1 : 0
    if (options.ledger !== undefined) output.line(`ledger: ${terminalSafe(shownPath(options.ledger))} (${plural(lines, 'line')}; read it with dsh-prompt history)`)
  }
  return 0
}

/** Writes the ledger text to `file` (replacing it); a file that cannot be written is `CLI_REPLAY_LEDGER_UNWRITABLE`. */
async function writeLedger(file: string, text: string): Promise<void> {
  try {
    await writeFile(file, text, 'utf8')
  } catch (error) {
    throw ledgerUnwritable(shownPath(file), error)
  }
}

function shownPath(file: string): string {
  const rel = relative(process.cwd(), file)
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : file
}
