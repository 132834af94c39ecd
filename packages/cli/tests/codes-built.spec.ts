import { expect } from 'chai'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { cli, EXAMPLE, fixture, REPO, type Run, runAll, assertBuilt } from './helpers.js'

/**
 * Every code of the CLI's catalogue (`packages/cli/src/errors.ts`) that a user can meet, produced by the
 * built binary (`node packages/cli/lib/cli.js … --json`, as a user runs it) and read back from its JSON
 * document: `error.code`, or the code of a problem it lists (`problems[]`, `warnings[]`, `error.problems[]`,
 * `error.details.problems[]`). One run may produce several codes (the `check` findings share one
 * deployment; the replay script problems share one script), so the whole list costs about 25 runs.
 */

/** Codes of the catalogue that no invocation of the CLI can show, each with the reason. */
const UNREACHABLE: Record<string, string> = {
  CLI_EXIT_INTERCEPTED: 'thrown into the plugin that called process.exit(); the user sees CLI_PLUGIN_EXIT (covered) whatever the plugin does with it',
  CLI_REPLAY_CLOCK_BUSY: 'two replays at once in one process: the CLI plays one script per process (replayDeployment() callers meet it; replay-script.spec.ts)',
  CLI_LEDGER_REFUSED: 'the fallback for a ledger refusal without a code: every refusal of dsh-agent\'s ledger reader carries an AGENT_LEDGER_* code (history.spec.ts)',
  CLI_ASSEMBLY_FAILED: 'the fallback for an assembly error without a code: every error the assembly throws is a coded PROMPT_* error (error-codes.spec.ts pins the fallback)',
}

/** One invocation (without `--json`, added) and the codes its JSON document must show. */
interface Case {
  argv: (dir: string) => string[]
  codes: string[]
  /** The exit code (1: the deployment or the check is wrong, 2: usage; 0: a warning of a check that passed). */
  exit: number
}

const MISSING = '/nonexistent-dsh-folder'

/** Plugin modules and deployments the cases write into a fresh folder. */
const FILES: Record<string, string> = {
  'never-listener.mjs': `export default { name: 'stuck-listener', inject: ['systemPrompt'], apply(ctx) { ctx.on('system-prompt/assemble', () => new Promise(() => {})) } }\n`,
  'quitter.mjs': `export default { name: 'swallower', apply() { try { process.exit(0) } catch {} } }\n`,
  'thrower.mjs': `export default { name: 'late-thrower', apply() { setTimeout(() => { throw new TypeError('boom from a timer') }, 0); return new Promise((resolve) => setTimeout(resolve, 20)) } }\n`,
  'rejecter.mjs': `export default { name: 'late-rejecter', apply() { Promise.reject(new RangeError('nobody catches me')) } }\n`,
  'bad-script.yml': [
    'turns:', '  - user: 3', '  - assistant:', '  - tool: { name: nope, result: x }', '  - clock: 1d', '  - { user: a, clock: +1h }',
    '  - user: a', '    extra: 1', '  - assistant: x', '    tool_calls: [{ name: a, arguments: \'[1]\' }]', '',
  ].join('\n'),
  'list-script.yml': '- user: hi\n',
  'syntax-script.yml': 'turns: [\n',
  'hi-script.yml': 'turns:\n  - user: hi\n',
  'refused-script.yml': 'turns:\n  - user: hi\n  - change: { row: dsh-system-prompt, config: { persona: 3 } }\n',
  'calls-script.yml': [
    'turns:', '  - user: read it', '  - assistant:', '    tool_calls: [{ name: read, arguments: { path: a } }]', '  - tool: { name: read, result: A }',
    '  - tool: { name: read, result: B }', '  - assistant:', '    tool_calls: [{ name: read, arguments: { path: b } }]', '  - user: next', '',
  ].join('\n'),
  'two-turns-script.yml': 'turns:\n  - user: hi\n  - user: again\n',
  'gone-script.yml': 'turns:\n  - user: hi\n  - change: { row: dsh-agent, config: { promptChange: replace } }\n  - user: again\n',
}

/** A deployment with the prompt service, the agents service and one row per module; agent "main". */
const deployment = (dir: string, module: string) => {
  const file = join(dir, `${module}.yml`)
  writeFileSync(file, `plugins:\n  - name: dsh-system-prompt\n  - name: dsh-agent\n  - name: ${JSON.stringify(join(dir, module))}\n    id: ${module.replace(/\W/g, '-')}\nagents:\n  - { id: main, model: deepseek-chat }\n`)
  return file
}

const CASES: Case[] = [
  { argv: () => ['render', EXAMPLE.minimal, '--agnet', 'x'], codes: ['CLI_USAGE'], exit: 2 },
  { argv: () => ['render', EXAMPLE.coding, '--agent', 'nope'], codes: ['CLI_UNKNOWN_AGENT'], exit: 2 },
  { argv: () => ['explain', EXAMPLE.coding, '--agent', 'main', '--agent', 'reviewer'], codes: ['CLI_ONE_AGENT_ONLY'], exit: 2 },
  { argv: () => ['render', fixture('no-agents.yml'), '--request'], codes: ['CLI_REQUEST_NEEDS_AGENT'], exit: 2 },
  { argv: () => ['render', EXAMPLE.coding, '--request', '--format', 'cohere'], codes: ['CLI_UNKNOWN_FORMAT'], exit: 2 },
  { argv: () => ['render', EXAMPLE.coding, '--format', 'gemini'], codes: ['CLI_FORMAT_NEEDS_REQUEST'], exit: 2 },
  { argv: () => ['explain', fixture('no-agents.yml'), '--format', 'gemini'], codes: ['CLI_FORMAT_NEEDS_AGENT'], exit: 2 },
  { argv: () => ['diff', EXAMPLE.coding], codes: ['CLI_DIFF_ARGUMENTS'], exit: 2 },
  { argv: () => ['explain', EXAMPLE.minimal, '--html', `${MISSING}/page.html`], codes: ['CLI_HTML_NOT_WRITTEN'], exit: 2 },
  { argv: () => ['check', EXAMPLE.minimal, '--render-gap', 'soon'], codes: ['CLI_INVALID_GAP'], exit: 2 },
  { argv: () => ['render', EXAMPLE.minimal, '--max-file-size', '1e3'], codes: ['CLI_INVALID_FILE_SIZE'], exit: 2 },
  { argv: () => ['explain', EXAMPLE.minimal, '--max-yaml-tokens', 'many'], codes: ['CLI_INVALID_LIMIT'], exit: 2 },
  { argv: () => ['check', EXAMPLE.minimal, '--max-quoted-chars', '0'], codes: ['CLI_INVALID_LIMIT'], exit: 2 },
  { argv: () => ['render', EXAMPLE.minimal, '--timeout', 'abc'], codes: ['CLI_INVALID_TIMEOUT'], exit: 2 },
  { argv: () => ['render', fixture('unknown-variable.yml')], codes: ['CLI_RENDER_FAILED'], exit: 1 },
  { argv: (dir) => ['render', deployment(dir, 'never-listener.mjs'), '--timeout', '1500'], codes: ['CLI_ASSEMBLY_TIMEOUT'], exit: 1 },
  { argv: (dir) => ['render', deployment(dir, 'quitter.mjs')], codes: ['CLI_PLUGIN_EXIT'], exit: 1 },
  { argv: (dir) => ['render', deployment(dir, 'thrower.mjs')], codes: ['CLI_UNCAUGHT_EXCEPTION'], exit: 1 },
  { argv: (dir) => ['render', deployment(dir, 'rejecter.mjs')], codes: ['CLI_UNHANDLED_REJECTION'], exit: 1 },
  {
    argv: () => ['check', fixture('every-check-code.yml')], exit: 1,
    codes: ['CLI_VALUELESS_AT', 'CLI_UNSTABLE_TEXT', 'CLI_VOLATILE_BEFORE_STABLE', 'CLI_TOOL_NOT_SENDABLE', 'CLI_PLACEMENTS_TOO_CLOSE', 'CLI_UNRESOLVED_RESTRICTION', 'CLI_UNRESOLVED_ALLOW'],
  },
  {
    argv: (dir) => ['replay', fixture('replay-deployment.yml'), '--script', join(dir, 'bad-script.yml')], exit: 2,
    codes: ['CLI_REPLAY_SCRIPT_INVALID', 'CLI_REPLAY_WRONG_TYPE', 'CLI_REPLAY_EMPTY_REPLY', 'CLI_REPLAY_NO_CALL', 'CLI_REPLAY_BAD_CLOCK', 'CLI_REPLAY_ITEM_KIND', 'CLI_REPLAY_UNKNOWN_KEY', 'CLI_REPLAY_BAD_ARGUMENTS'],
  },
  { argv: (dir) => ['replay', fixture('replay-deployment.yml'), '--script', join(dir, 'calls-script.yml')], codes: ['CLI_REPLAY_CALL_ANSWERED', 'CLI_REPLAY_UNANSWERED_CALL'], exit: 2 },
  { argv: (dir) => ['replay', fixture('replay-deployment.yml'), '--script', join(dir, 'two-turns-script.yml'), '--max-turns', '1'], codes: ['CLI_REPLAY_TOO_MANY_TURNS'], exit: 2 },
  { argv: () => ['replay', fixture('replay-deployment.yml'), '--script', `${MISSING}/script.yml`], codes: ['CLI_REPLAY_UNREADABLE'], exit: 2 },
  { argv: (dir) => ['replay', fixture('replay-deployment.yml'), '--script', join(dir, 'syntax-script.yml')], codes: ['CLI_REPLAY_YAML'], exit: 2 },
  { argv: (dir) => ['replay', fixture('replay-deployment.yml'), '--script', join(dir, 'list-script.yml')], codes: ['CLI_REPLAY_SHAPE'], exit: 2 },
  { argv: (dir) => ['replay', fixture('no-agents.yml'), '--script', join(dir, 'hi-script.yml')], codes: ['CLI_REPLAY_NEEDS_AGENT'], exit: 2 },
  { argv: (dir) => ['replay', fixture('replay-deployment.yml'), '--script', join(dir, 'refused-script.yml')], codes: ['CLI_REPLAY_TURN_FAILED'], exit: 1 },
  { argv: (dir) => ['replay', fixture('replay-deployment.yml'), '--script', join(dir, 'gone-script.yml')], codes: ['CLI_REPLAY_AGENT_GONE'], exit: 1 },
  {
    argv: (dir) => ['replay', fixture('replay-deployment.yml'), '--script', join(dir, 'hi-script.yml'), '--ledger', `${MISSING}/l.jsonl`],
    codes: ['CLI_REPLAY_LEDGER_UNWRITABLE'], exit: 1,
  },
  { argv: () => ['history', `${MISSING}/ledger.jsonl`], codes: ['CLI_LEDGER_UNREADABLE'], exit: 1 },
  { argv: () => ['check', fixture('budget-heavy.yml')], codes: ['CLI_HEAD_OVER_BUDGET'], exit: 0 },
]

/** The CLI's own codes, as its catalogue writes them (quoted `CLI_*` literals). */
function catalogueCodes(): string[] {
  const text = readFileSync(join(REPO, 'packages/cli/src/errors.ts'), 'utf8')
  return [...new Set([...text.matchAll(/'(CLI_[A-Z0-9_]+)'/g)].map((m) => m[1]))].sort()
}

/** The codes a JSON document shows where a user reads them: the error's, and each listed problem's (and `check`'s warnings'). */
function codesIn(doc: {
  error?: { code?: string; problems?: Array<{ code: string }>; details?: { problems?: Array<{ code: string }> } }
  problems?: Array<{ code: string }>
  warnings?: Array<{ code: string }>
}): string[] {
  const error = doc.error
  return [error?.code, ...(error?.problems ?? []), ...(error?.details?.problems ?? []), ...(doc.problems ?? []), ...(doc.warnings ?? [])]
    .map((item) => (typeof item === 'string' ? item : item?.code))
    .filter((code): code is string => typeof code === 'string')
}

describe('dsh-prompt (built): every code the CLI can produce reaches --json', function () {
  // Each run ends in about a second; the bound only catches a hang.
  this.timeout(240_000)
  let dir: string
  const runs: Run[] = []

  before(async () => {
    assertBuilt()
    dir = mkdtempSync(join(tmpdir(), 'dsh-codes-'))
    for (const [name, text] of Object.entries(FILES)) writeFileSync(join(dir, name), text)
    const jobs = Object.fromEntries(CASES.map((c, i) => [String(i), () => cli([...c.argv(dir), '--json'], { timeout: 60_000 })]))
    Object.assign(runs, Object.values(await runAll(jobs)))
  })
  after(() => rmSync(dir, { recursive: true, force: true }))

  it('the cases cover every code of the catalogue, except the ones no invocation can show (each with its reason)', () => {
    const covered = new Set(CASES.flatMap((c) => c.codes))
    const catalogue = catalogueCodes()
    expect(catalogue.filter((code) => !covered.has(code) && !(code in UNREACHABLE)), 'codes without a case').to.deep.equal([])
    expect([...covered, ...Object.keys(UNREACHABLE)].filter((code) => !catalogue.includes(code)), 'cases for codes the catalogue lacks').to.deep.equal([])
    expect(Object.keys(UNREACHABLE).filter((code) => covered.has(code)), 'codes both covered and called unreachable').to.deep.equal([])
  })

  CASES.forEach((c, i) => {
    it(`${c.codes.join(', ')}: read from the JSON document of a run of the built CLI (case ${i + 1}, exit ${c.exit})`, () => {
      const run = runs[i]
      expect(run.timedOut, run.stderr).to.equal(false)
      const doc = JSON.parse(run.stdout)
      // `check` reports its findings with `ok: false` and no `exitCode` member (a check whose findings are
      // all warnings passes: `ok: true`, exit 0); a failure document has both.
      expect({ exit: run.code, ok: doc.ok, docExit: doc.exitCode ?? c.exit }, run.stdout).to.deep.equal({ exit: c.exit, ok: c.exit === 0, docExit: c.exit })
      expect(codesIn(doc)).to.include.members(c.codes)
    })
  })
})
