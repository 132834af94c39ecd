import { expect } from 'chai'
import { Writable } from 'node:stream'
import { main } from '../src/program.js'
import { EXAMPLE } from './helpers.js'

/** Collects what is written to it. */
class Capture extends Writable {
  text = ''
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void) {
    this.text += chunk.toString()
    done()
  }
}

/** One in-process run of `main()` with `--json`: the exit code, the JSON document and stderr. */
async function runJson(argv: string[]) {
  const stdout = new Capture()
  const stderr = new Capture()
  const exitCode = await main([...argv, '--json'], { stdout, stderr, env: { NO_COLOR: '1' } })
  return { exitCode, doc: JSON.parse(stdout.text) as { ok: boolean; exitCode: number; error: { kind: string; code: string; message: string; details?: object } }, stderr: stderr.text }
}

describe('dsh-prompt: an option value the CLI refuses keeps its documented code in --json', () => {
  const cases: Array<{ argv: string[]; code: string; details: object; message: string }> = [
    {
      argv: ['render', EXAMPLE.minimal, '--timeout', 'abc'], code: 'CLI_INVALID_TIMEOUT', details: { received: 'abc' },
      message: '--timeout must be a whole number of milliseconds from 1 to 2147483647, received "abc"',
    },
    {
      argv: ['check', EXAMPLE.minimal, '--timeout', '0'], code: 'CLI_INVALID_TIMEOUT', details: { received: '0' },
      message: '--timeout must be a whole number of milliseconds from 1 to 2147483647, received "0"',
    },
    {
      argv: ['explain', EXAMPLE.minimal, '--max-file-size', 'big'], code: 'CLI_INVALID_FILE_SIZE', details: { received: 'big' },
      message: '--max-file-size must be a whole number of bytes (at least 1), received "big"',
    },
    {
      argv: ['render', EXAMPLE.minimal, '--max-yaml-tokens', '1e3'], code: 'CLI_INVALID_LIMIT', details: { flag: '--max-yaml-tokens', received: '1e3' },
      message: '--max-yaml-tokens must be a whole number (at least 1), received "1e3"',
    },
    {
      argv: ['diff', EXAMPLE.minimal, EXAMPLE.minimal, '--max-quoted-chars', '-5'], code: 'CLI_INVALID_LIMIT', details: { flag: '--max-quoted-chars', received: '-5' },
      message: '--max-quoted-chars must be a whole number (at least 1), received "-5"',
    },
    {
      argv: ['render', EXAMPLE.coding, '--agent', 'main', '--agent', 'reviewer'], code: 'CLI_ONE_AGENT_ONLY', details: { command: 'render', first: 'main', second: 'reviewer' },
      message: 'render shows one agent, but --agent was given twice (main, reviewer); to compare two agents, run "dsh-prompt diff <deployment> --agent main --agent reviewer"',
    },
    {
      argv: ['check', EXAMPLE.minimal, '--render-gap', 'soon'], code: 'CLI_INVALID_GAP', details: { received: 'soon' },
      message: '--render-gap must be a whole number of milliseconds from 0 to 10000, received "soon"',
    },
  ]

  for (const { argv, code, details, message } of cases) {
    it(`${argv.slice(argv.findIndex((a) => a.startsWith('--'))).join(' ')} (${argv[0]}) is a usage error coded ${code}, with its details in --json and its words on stderr`, async () => {
      const run = await runJson(argv)
      expect(run.exitCode).to.equal(2)
      expect(run.doc).to.deep.equal({ ok: false, exitCode: 2, error: { kind: 'usage', code, message, details } })
      expect(run.stderr).to.equal(`error: ${message}\n`)
    })
  }

  it('a value outside an option\'s choices (commander\'s own check) stays CLI_USAGE, with commander\'s words', async () => {
    const run = await runJson(['render', EXAMPLE.minimal, '--log-level', 'loud'])
    expect(run.doc).to.deep.equal({
      ok: false, exitCode: 2,
      error: { kind: 'usage', code: 'CLI_USAGE', message: 'option \'--log-level <level>\' argument \'loud\' is invalid. Allowed choices are silent, error, warn, info, debug.' },
    })
  })
})
