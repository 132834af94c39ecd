import { expect } from 'chai'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CliError, type ScriptProblem } from '../src/errors.js'
import { parseReplayScript, readReplayScript } from '../src/replay-script.js'
import { assertBuilt, cli, fixture, REPO } from './helpers.js'

// Issue 20, item 2: every file the CLI reads (deployments, replay scripts, ledgers) has the same check
// (`dsh-loader`'s readRegularFile): a regular file within --max-file-size, refused before it is opened.
// A FIFO given as a script or a ledger blocked forever; a 37.5 MB script ran V8 out of heap.

/** The problems of a script that must be refused. */
async function scriptProblems(read: () => Promise<unknown>): Promise<ScriptProblem[]> {
  try {
    await read()
  } catch (error) {
    if (!CliError.is(error)) throw error
    expect(error.code).to.equal('CLI_REPLAY_SCRIPT_INVALID')
    return (error.details as { problems: ScriptProblem[] }).problems
  }
  throw new Error('the script was not refused')
}

describe('dsh-prompt: the files it reads are regular files within --max-file-size', () => {
  before(assertBuilt)
  let dir: string
  beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'dsh-cli-files-')) })
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  it('history <fifo> exits 1 at once with LOADER_NOT_A_FILE instead of waiting for a writer', async () => {
    const fifo = join(dir, 'ledger.jsonl')
    execFileSync('mkfifo', [fifo])
    const run = await cli(['history', fifo, '--json'], { timeout: 10_000 })
    expect(run.timedOut).to.equal(false)
    expect(run.code).to.equal(1)
    expect(JSON.parse(run.stdout).error).to.deep.include({
      kind: 'ledger', code: 'LOADER_NOT_A_FILE', message: `cannot read the ledger ${fifo}: it is a FIFO, not a regular file`,
    })
  })

  it('replay --script <fifo> is refused at once with LOADER_NOT_A_FILE, nothing played', async () => {
    const fifo = join(dir, 'script.yml')
    execFileSync('mkfifo', [fifo])
    const run = await cli(['replay', fixture('replay-deployment.yml'), '--script', fifo, '--json'], { timeout: 10_000 })
    expect(run.timedOut).to.equal(false)
    expect(run.code).to.equal(2)
    const { error } = JSON.parse(run.stdout)
    expect(error.code).to.equal('CLI_REPLAY_SCRIPT_INVALID')
    expect(error.problems).to.have.length(1)
    expect(error.problems[0]).to.include({ code: 'LOADER_NOT_A_FILE', message: 'cannot read the replay script: it is a FIFO, not a regular file' })
  })

  it('a ledger over --max-file-size is refused before it is read, and read once the limit is raised', async () => {
    const ledger = join(REPO, fixture('ledger/conversation.jsonl'))
    const size = readFileSync(ledger).length
    const refused = await cli(['history', ledger, '--max-file-size', '1000', '--json'])
    expect(refused.code).to.equal(1)
    expect(JSON.parse(refused.stdout).error).to.deep.include({
      kind: 'ledger', code: 'LOADER_FILE_TOO_LARGE',
      message: `cannot read the ledger ${ledger}: it is ${size} bytes, more than the limit of 1000 bytes (raise it with --max-file-size <bytes>)`,
    })
    expect((await cli(['history', ledger, '--max-file-size', String(size)])).code).to.equal(0)
  })

  it('a replay script over the size limit is refused before it is read, with the loader\'s code', async () => {
    const script = join(dir, 'script.yml')
    writeFileSync(script, 'turns:\n' + '  - user: Hello.\n'.repeat(100))
    const problems = await scriptProblems(() => readReplayScript(script, 'script.yml', { maxBytes: 1000 }))
    expect(problems).to.deep.equal([{
      file: 'script.yml', code: 'LOADER_FILE_TOO_LARGE',
      message: 'cannot read the replay script: it is 1707 bytes, more than the limit of 1000 bytes (raise it with --max-file-size <bytes>)',
      details: { bytes: 1707, limit: 1000, what: 'the replay script' },
    }])
    expect((await readReplayScript(script, 'script.yml', { maxBytes: 1707 })).turns).to.have.length(100)
  })

  it('a replay script with more YAML tokens than --max-yaml-tokens is refused before the parse, at the token that crosses the limit', async () => {
    const script = join(dir, 'script.yml')
    writeFileSync(script, 'turns:\n' + '  - user: Hello.\n'.repeat(100))
    const problems = await scriptProblems(() => readReplayScript(script, 'script.yml', { yaml: { tokens: 50 } }))
    expect(problems).to.have.length(1)
    expect(problems[0]).to.include({ code: 'LOADER_YAML_TOO_MANY_TOKENS', line: 7 })
    expect(problems[0].message).to.match(/^the replay script has more than 50 YAML tokens .*raise the limit with --max-yaml-tokens <n>\)$/)
  })

  it('a replay script with more turns than the bound is refused before any turn is read, naming the first turn past it', async () => {
    const text = 'turns:\n' + '  - user: Hello.\n'.repeat(1001)
    const problems = await scriptProblems(async () => parseReplayScript(text, 'long.yml'))
    expect(problems).to.deep.equal([{
      file: 'long.yml', line: 1002, column: 5, item: 'turns[1000]', code: 'CLI_REPLAY_TOO_MANY_TURNS',
      message: 'the script has 1001 turns, more than the limit of 1000: each turn may run a step, whose request grows with the turns before it (split the script, or raise the limit with --max-turns <n>)',
      details: { turns: 1001, limit: 1000 },
    }])
    expect(parseReplayScript(text, 'long.yml', 1001).turns).to.have.length(1001)
    const run = await cli(['replay', fixture('replay-deployment.yml'), '--script', fixture('replay-script.yml'), '--max-turns', '3', '--json'])
    expect(run.code).to.equal(2)
    expect(JSON.parse(run.stdout).error.problems[0]).to.include({ code: 'CLI_REPLAY_TOO_MANY_TURNS', item: 'turns[3]' })
  })
})
