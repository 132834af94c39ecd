import { expect } from 'chai'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import z from 'schemastery'
import {
  codeOf, DEFAULT_MAX_DOUBLE_QUOTED_CHARS, DEFAULT_MAX_YAML_TOKENS, DeploymentError, detailsOf, loadDeployment, LoaderErrors, type LoadOptions, type Problem,
} from 'dsh-loader'
import { bootApp, rejection } from 'dsh-testing'

/** A `notes:` section: a list of strings, so a file can hold many values with no plugin to check them. */
const sections = { notes: z.array(z.string()) }

const tokensMessage = (limit: number) => `the deployment has more than ${limit} YAML tokens (each key, value, indicator, comment and line break counts one; a real deployment has a few thousand), which is more than the loader parses: the YAML parser holds a few hundred bytes per token (split the file, or raise the limit with maxYamlTokens when loading)`
const quotedMessage = (limit: number) => `the deployment's double-quoted strings hold more than ${limit} characters in all, which is more than the loader parses: the YAML parser builds them one character at a time, about 32 bytes each (write long text as a block scalar, | or >, which has no such limit; or raise the limit with maxDoubleQuotedChars when loading)`

describe('dsh-loader: the memory a parse may take is bounded (issue 11 item 10)', () => {
  let dir: string
  beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'dsh-yaml-limits-')) })
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  function write(text: string): string {
    const file = join(dir, 'deployment.yml')
    writeFileSync(file, text)
    return file
  }

  async function problems(file: string, options: LoadOptions<typeof sections> = {}): Promise<Problem[]> {
    const { host } = await bootApp()
    const error = await rejection(() => loadDeployment(host, file, { env: {}, sections, ...options }))
    expect(DeploymentError.is(error), String(error)).to.equal(true)
    return [...(error as DeploymentError).problems]
  }

  /** `plugins:` with one row, then a `notes:` list of `count` short items (5 tokens each: indent, `-`, space, value, line break). */
  const notes = (count: number) => `plugins:\n  - name: dsh-system-prompt\nnotes:\n${'  - t\n'.repeat(count)}`

  it('documents its defaults: 20,000 YAML tokens, 128 Ki characters of double-quoted strings', () => {
    expect([DEFAULT_MAX_YAML_TOKENS, DEFAULT_MAX_DOUBLE_QUOTED_CHARS]).to.deep.equal([20_000, 131_072])
  })

  it('refuses a file of more than 20,000 tokens before parsing it, at the token past the limit', async () => {
    // 3 + 8 + 3 tokens before the list (`plugins` `:` LF; indent `-` space `name` `:` space value LF; `notes` `:` LF),
    // then 5 per item: token 20,001 is the 3,998th item's `-` (19,986 + 1 + 14 = 20,001), on line 4 + 3,997.
    const [problem, ...rest] = await problems(write(notes(5_000)))
    expect(rest).to.deep.equal([])
    expect(problem).to.deep.equal({ file: problem.file, line: 4_001, column: 3, code: 'LOADER_YAML_TOO_MANY_TOKENS', message: tokensMessage(20_000) })
  })

  it('names the limit it was given, and loads the same file once maxYamlTokens allows it', async () => {
    const file = write(notes(5_000))
    const [problem] = await problems(file, { maxYamlTokens: 100 })
    // Token 101: (101 - 14) = 87 = 5 × 17 + 2, the 18th item's `-`.
    expect(problem).to.include({ line: 21, column: 3, code: 'LOADER_YAML_TOO_MANY_TOKENS', message: tokensMessage(100) })
    const { host } = await bootApp()
    const deployment = await loadDeployment(host, file, { env: {}, sections, maxYamlTokens: 30_000 })
    expect(deployment.sections.notes).to.have.length(5_000)
    await deployment.dispose()
  })

  it('counts every token, comments and blank lines too (each costs the parser as much as a value)', async () => {
    const file = write(`plugins:\n  - name: dsh-system-prompt\n${'# a comment\n\n'.repeat(40)}`)
    // 11 tokens, then 3 per comment (the comment, its LF, the blank line): token 51 is the 14th comment, on line 2 + 2 × 14 - 1.
    const [problem] = await problems(file, { maxYamlTokens: 50 })
    expect(problem).to.include({ line: 29, column: 1, code: 'LOADER_YAML_TOO_MANY_TOKENS' })
  })

  it('gives the same place in a file with CRLF line endings (a CRLF is one token, as an LF is)', async () => {
    const [problem] = await problems(write(notes(5_000).replaceAll('\n', '\r\n')), { maxYamlTokens: 100 })
    expect(problem).to.include({ line: 21, column: 3, code: 'LOADER_YAML_TOO_MANY_TOKENS' })
  })

  it('refuses double-quoted strings of more than 128 Ki characters in all, at the string that crosses it', async () => {
    const long = 'x'.repeat(50_000)
    const file = write(`plugins:\n  - name: dsh-system-prompt\nnotes:\n  - "${long}"\n  - "${long}"\n  - "${long}"\n`)
    const [problem, ...rest] = await problems(file)
    expect(rest).to.deep.equal([])
    expect(problem).to.deep.equal({ file: problem.file, line: 6, column: 5, code: 'LOADER_YAML_DOUBLE_QUOTED_TOO_LONG', message: quotedMessage(131_072) })
    const { host } = await bootApp()
    const deployment = await loadDeployment(host, file, { env: {}, sections, maxDoubleQuotedChars: 150_000 })
    expect(deployment.sections.notes.map((note) => note.length)).to.deep.equal([50_000, 50_000, 50_000])
    await deployment.dispose()
  })

  it('leaves long plain, single-quoted and block text alone, even a block scalar that starts with a double quote', async () => {
    const long = 'x'.repeat(200_000)
    const file = write(`plugins:\n  - name: dsh-system-prompt\nnotes:\n  - ${long}\n  - '${long}'\n  - |\n    "${long}"\n`)
    const { host } = await bootApp()
    const deployment = await loadDeployment(host, file, { env: {}, sections })
    expect(deployment.sections.notes.map((note) => note.length)).to.deep.equal([200_000, 200_000, 200_003])
    await deployment.dispose()
  })

  it('still loads a large ordinary deployment at the defaults: 1 MiB of rows, texts and lists (some 12,000 tokens)', async () => {
    const row = (i: number) => `  - name: dsh-system-prompt\n    id: prompt-${i}\n    disabled: true\n    config:\n      persona: "Agent ${i}, in double quotes"\n      toolOrder: [bash, read, edit, <unlisted-tools>]\n`
    const persona = '        You are the coding agent of this repository: work in {{cwd}}, make complete, minimal changes.\n'.repeat(10_000)
    const text = `plugins:\n  - name: dsh-system-prompt\n    config:\n      persona: |\n${persona}${Array.from({ length: 150 }, (_, i) => row(i)).join('')}notes:\n${'  - a note of the deployment\n'.repeat(1_000)}`
    expect(text.length).to.be.above(1024 * 1024)
    const { host } = await bootApp()
    const deployment = await loadDeployment(host, write(text), { env: {}, sections })
    expect([deployment.entries.length, deployment.disabled.length, deployment.sections.notes.length]).to.deep.equal([1, 150, 1_000])
    expect((deployment.entries[0].config as { persona: string }).persona).to.have.length(persona.length - 8 * 10_000)
    await deployment.dispose()
  })

  it('refuses a limit that is not a positive whole number, and takes Infinity for none', async () => {
    const file = write(notes(10))
    const { host } = await bootApp()
    for (const [key, value] of [['maxYamlTokens', 0], ['maxYamlTokens', 1.5], ['maxDoubleQuotedChars', -1], ['maxDoubleQuotedChars', '10']] as const) {
      const error = await rejection(() => loadDeployment(host, file, { env: {}, sections, [key]: value as number }))
      expect(error).to.be.instanceOf(TypeError)
      expect([codeOf(error), detailsOf(error, 'LOADER_INVALID_LIMIT'), (error as Error).message])
        .to.deep.equal(['LOADER_INVALID_LIMIT', { key }, `${key} must be a positive whole number (or Infinity for no limit), received ${typeof value === 'string' ? JSON.stringify(value) : value}`])
    }
    const deployment = await loadDeployment(host, file, { env: {}, sections, maxYamlTokens: Infinity, maxDoubleQuotedChars: Infinity })
    expect(deployment.sections.notes).to.have.length(10)
    await deployment.dispose()
  })

  it('makes each message with its code and the limit it is about', () => {
    expect([LoaderErrors.yamlTooManyTokens(7), LoaderErrors.yamlDoubleQuotedTooLong(9)]).to.deep.equal([
      { code: 'LOADER_YAML_TOO_MANY_TOKENS', details: { limit: 7, what: 'the deployment' }, message: tokensMessage(7) },
      { code: 'LOADER_YAML_DOUBLE_QUOTED_TOO_LONG', details: { limit: 9, what: 'the deployment' }, message: quotedMessage(9) },
    ])
  })
})
