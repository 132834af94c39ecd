/**
 * The command line: `render`, `explain`, `diff` and `check` on commander, each with `--help` and the
 * common options, and `main()`, which runs one invocation and resolves to its exit code.
 * @module
 */
import { Command, CommanderError, Option } from 'commander'
import { checkCommand, type CheckOptions } from './commands/check.js'
import { diffCommand, type DiffOptions } from './commands/diff.js'
import { explainCommand, type ExplainOptions } from './commands/explain.js'
import { historyCommand, type HistoryOptions } from './commands/history.js'
import { renderCommand, type RenderOptions } from './commands/render.js'
import { replayCommand, type ReplayCommandOptions } from './commands/replay.js'
import { COMMANDER_USAGE, EXIT, oneAgentOnly, USAGE_HINT } from './errors.js'
import { limit, withCommonOptions, type CommonOptions } from './options.js'
import { CommandGuard } from './guard.js'
import { Output, type OutputOptions } from './output.js'
import { reportFailure } from './report.js'

/** The version printed by `--version`. */
export const VERSION = '0.1.0'

/** Where one invocation reads and writes (the process's own streams and environment by default). */
export type CliIO = OutputOptions

/**
 * Runs one invocation (`argv` without `node` and the script) and resolves to its exit code: 0 ok,
 * 1 the deployment or the check is wrong (for `diff`: the two differ), 2 a usage error (for `diff`:
 * also a deployment that cannot be compared). It never throws and never exits the process.
 */
export async function main(argv: readonly string[], io: CliIO = {}): Promise<number> {
  const output = new Output(io)
  const json = argv.includes('--json')
  if (argv.includes('--no-color')) output.setColor(false)
  let code: number = EXIT.ok
  const action = <O extends CommonOptions>(run: (options: O) => Promise<number>, failureCode: number = EXIT.wrong) =>
    async (options: O) => {
      output.setColor(options.color === false ? false : undefined)
      const report = { json: options.json, stack: options.stack, failureCode }
      // While the command runs, its plugins cannot write to stdout, exit or crash the process (guard.ts).
      const guard = new CommandGuard(output, options.timeout)
      output.hold()
      guard.start()
      let failure: { error: unknown } | undefined
      try {
        code = await run(options)
      } catch (error) {
        failure = { error }
      } finally {
        await guard.stop()
      }
      // A late failure or a plugin's exit is the command's result, whatever it printed.
      if (guard.failure) failure = { error: guard.failure }
      if (failure) {
        output.discard()
        code = reportFailure(output, failure.error, report)
      } else {
        output.release()
      }
    }

  const program = buildProgram(output)
  program.command('render').summary('print the system prompt, runtime context and tools the model gets')
    .description('Print what the next request of an agent carries: the rendered system prompt, the runtime-context snapshot and the tool list, exactly as sent. Without --agent: the first agent of the file; a file without agents: the deployment-level assembly.')
    .argument('<deployment>', 'the deployment file (YAML)')
    .option('--agent <id>', 'the agent to render (default: the first one in agents:)', onlyOnce('render'))
    .option('--step-input <text>', 'a user message for the step (it appears in the request)')
    .option('--request', 'print the whole request body as JSON (chat completions unless --format says otherwise)')
    .option('--format <format>', 'with --request: the wire format of the body: openai-chat (default), openai-responses, anthropic, gemini')
    .action((file: string, options: RenderOptions) => action<RenderOptions>((o) => renderCommand(file, o, output))(options))
  program.command('explain').summary('show where every section, context and tool comes from, and what it costs')
    .description('A table of every section and runtime context (order, name, owning plugin, layer, bytes, tokens, what it shadows), the sections dropped as empty, the tools (owner, layer, bytes and tokens of the JSON as sent), the variables, and totals. Tokens are counted with the o200k_base encoding.')
    .argument('<deployment>', 'the deployment file (YAML)')
    .option('--agent <id>', 'the agent to explain (default: the first one in agents:)', onlyOnce('explain'))
    .option('--format <format>', 'also list the request\'s parts in the order this wire format\'s provider hashes them, with byte offsets: openai-chat, openai-responses, anthropic, gemini')
    .option('--html <file>', 'write the picture (one self-contained HTML page) to this file instead of printing the tables')
    .action((file: string, options: ExplainOptions) => action<ExplainOptions>((o) => explainCommand(file, o, output))(options))
  program.command('diff').summary('compare two deployments (or two agents) for prefix-cache reuse')
    .description('For the system prompt, the tools and the runtime-context snapshot: whether the request prefix stays byte-identical, and if not the first differing byte and token, the section or tool it falls in, its owner, and a unified diff. Forms: diff <a.yml> <b.yml> [--agent id], diff <a.yml> --agent x --agent y. Exit status like diff(1): 0 identical, 1 different, 2 trouble (usage, or a deployment that cannot be loaded or rendered).')
    .argument('<a>', 'the first deployment file')
    .argument('[b]', 'the second deployment file')
    .option('--agent <id>', 'the agent to compare (default: the first one in agents:); give it twice to compare two agents of one file', collect)
    .option('--format <format>', 'compare in the order this wire format\'s provider hashes a request, and report the first break of the two cache streams: openai-chat, openai-responses, anthropic, gemini')
    .action((a: string, b: string | undefined, options: DiffOptions) => action<DiffOptions>((o) => diffCommand([a, ...(b === undefined ? [] : [b])], o, output), EXIT.usage)(options))
  program.command('check').summary('list every problem of a deployment without calling a model')
    .description('Load errors, toolOrder errors, unknown or valueless {{variables}} in every agent\'s render, two complete sections, first-party sections closer than ten apart, sections whose text changes between two renders in a row, and dsh-presets warnings and tool restrictions that name no registered tool. Exit 1 when anything is wrong.')
    .argument('<deployment>', 'the deployment file (YAML)')
    .option('--render-gap <ms>', 'milliseconds between the two renders compared for unstable text (default: 10)')
    .action((file: string, options: CheckOptions) => action<CheckOptions>((o) => checkCommand(file, o, output))(options))
  program.command('history').summary('show what the model saw at each request of a conversation ledger')
    .description('Read a ledger (the JSON Lines an agent\'s conversation exports to, hash-chained) and print each request it records (the messages added since the previous reply, then the replies): the prompt version it was sent under, the messages added (input, tool results, snapshots, a new system-prompt version) and the replies with their usage; between system-prompt versions, a unified diff per section (sections compared at blank lines). A changed, removed, reordered or cut-short line exits 1 naming the line.')
    .argument('<ledger>', 'the ledger file (.jsonl)')
    .option('--head <hash>', 'the hash of the last line as the writer kept it: a ledger whose last lines are missing is refused')
    .action((file: string, options: HistoryOptions) => action<HistoryOptions>((o) => historyCommand(file, o, output))(options))
  program.command('replay').summary('play a scripted conversation and report the cache reuse of every request')
    .description('Play a YAML script (user turns, assistant replies with tool calls, tool results, a row\'s config replaced, a row added or removed, the clock moved on) against one agent of the deployment, and report every request: its bytes, the bytes and tokens it shares with the previous request, the tokens the provider should serve from cache, and each break with its cause, section and owner. See docs/cache-report.md.')
    .argument('<deployment>', 'the deployment file (YAML)')
    .requiredOption('--script <file>', 'the replay script (YAML, a turns: list)')
    .option('--agent <id>', 'the agent to play (default: the first one in agents:)', onlyOnce('replay'))
    .option('--format <format>', 'the wire format of the requests: openai-chat (default), openai-responses, anthropic, gemini')
    .addOption(new Option('--policy <policy>', 'the agent\'s promptChange policy for the replay (default: the agent\'s own)').choices(['append', 'replace']))
    .option('--ledger <out.jsonl>', 'also write the played conversation as a ledger (JSON Lines; read it with dsh-prompt history)')
    .option('--html <file>', 'write the picture (one self-contained HTML page: reusable and new tokens per request, each break marked) instead of printing the tables')
    .option('--max-turns <n>', 'the most turns the script may hold (default 1000)', limit('--max-turns'))
    .action((file: string, options: ReplayCommandOptions) => action<ReplayCommandOptions>((o) => replayCommand(file, o, output))(options))
  for (const command of program.commands) withCommonOptions(command)

  try {
    await program.parseAsync(argv as string[], { from: 'user' })
  } catch (error) {
    if (!(error instanceof CommanderError)) return reportFailure(output, error, { json, stack: argv.includes('--stack') })
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.exitCode === 0) return EXIT.ok
    // commander has printed its message on stderr already (the whole help when no command was given).
    if (error.code !== 'commander.help') output.error(USAGE_HINT)
    if (json) output.json({ ok: false, exitCode: EXIT.usage, error: { kind: 'usage', code: COMMANDER_USAGE, message: error.message.replace(/^error: /, '') } })
    return EXIT.usage
  }
  return code
}

/** The root command: name, version, help, and errors routed through `output` instead of exiting. */
function buildProgram(output: Output): Command {
  return new Command('dsh-prompt')
    .description('See exactly what the model will get from a dsh deployment file, and why.')
    .version(VERSION, '-V, --version')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => output.write(text),
      writeErr: (text) => output.error(text.replace(/\n$/, '')),
      getOutHasColors: () => output.colorful,
      getErrHasColors: () => output.errorColorful,
    })
    .addHelpText('after', '\nExit status: 0 ok, 1 the deployment (or the check) is wrong, 2 usage error.\ndiff: 0 identical, 1 different, 2 trouble.\nRun "dsh-prompt <command> --help" for the options of a command.')
}

/**
 * The parser of an `--agent` that may be given once: a second one is a usage error (`CLI_ONE_AGENT_ONLY`),
 * not a silent override. Commander passes the catalogue's error through, so it keeps its code.
 */
function onlyOnce(command: string) {
  return (value: string, previous: string | undefined): string => {
    if (previous !== undefined) throw oneAgentOnly(command, previous, value)
    return value
  }
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...previous ?? [], value]
}
