import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { expect } from 'chai'
import ts from 'typescript'

// docs/typescript-plugins.md, checked: its plugin (tests/fixtures/typescript-plugin/team-notes.ts)
// compiles under the settings the page gives, and the two traps it names are real (issue 24).

const FIXTURE = fileURLToPath(new URL('./fixtures/typescript-plugin/', import.meta.url))
const PLUGIN = `${FIXTURE}team-notes.ts`

/** The diagnostics of compiling `file` (with `source` in its place when given) under the fixture's tsconfig, with `overrides`. */
function compile(file: string, overrides: ts.CompilerOptions = {}, source?: string): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(`${FIXTURE}tsconfig.json`, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(String(d.messageText)) } })!
  const options = { ...config.options, ...overrides }
  const host = ts.createCompilerHost(options)
  if (source !== undefined) {
    const read = host.getSourceFile.bind(host)
    host.getSourceFile = (name, language, ...rest) => (name === file ? ts.createSourceFile(name, source, language) : read(name, language, ...rest))
  }
  const program = ts.createProgram([file], options, host)
  return ts.getPreEmitDiagnostics(program).map((d) => `TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`)
}

describe('a plugin written in TypeScript (docs/typescript-plugins.md)', function () {
  this.timeout(120_000)

  it('compiles strict under moduleResolution bundler, with ctx.systemPrompt typed (a misuse does not compile)', () => {
    expect(compile(PLUGIN)).to.deep.equal([])
  })

  it('takes Schema from schemastery: cordis exports none', () => {
    const wrong = readFileSync(PLUGIN, 'utf8').replace("import Schema from 'schemastery'", "import { Schema } from 'cordis'")
    expect(compile(PLUGIN, {}, wrong)[0]).to.equal('TS2305: Module \'"cordis"\' has no exported member \'Schema\'.')
  })

  it('cannot see Cordis\'s Context under module nodenext (cordis 4.0.0-rc.10\'s declarations), as the page warns', () => {
    const problems = compile(PLUGIN, { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext })
    expect(problems[0]).to.equal('TS2305: Module \'"cordis"\' has no exported member \'Context\'.')
  })
})
