import { expect } from 'chai'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { codeOf, DeploymentError, detailsOf, loadDeployment, LoaderErrors, type LoadOptions, type Problem } from 'dsh-loader'
import { bootApp, rejection } from 'dsh-testing'
import { fixture } from './helpers.js'

/** The codes of the problems of a load that must fail. */
async function codesOf(file: string, options: LoadOptions<any> = {}): Promise<Array<Pick<Problem, 'code' | 'message'>>> {
  const { host } = await bootApp()
  const error = await rejection(() => loadDeployment(host, file, { env: {}, ...options }))
  expect(error, String(error?.stack)).to.be.instanceOf(DeploymentError)
  return (error as DeploymentError).problems.map(({ code, message }) => ({ code, message }))
}

const coded = Object.assign(new Error('coded failure'), { code: 'SOME_PLUGIN_FAILURE' })

describe('dsh-loader: every message carries a stable code and the fields it is about', () => {
  const made = [
    LoaderErrors.unreadable(Object.assign(new Error('x'), { code: 'ENOENT' })),
    LoaderErrors.invalidUtf8(0xea),
    LoaderErrors.yamlSyntax('Missing closing "quote'),
    LoaderErrors.yamlValue('Unresolved alias'),
    LoaderErrors.emptyDeployment(),
    LoaderErrors.topNotMapping('a list'),
    LoaderErrors.missingPlugins(),
    LoaderErrors.unknownTopKey('agnets', ['plugins', 'agents']),
    LoaderErrors.pluginsNotList('a mapping'),
    LoaderErrors.rowNotMapping('a string "x"'),
    LoaderErrors.unknownRowKey('confg'),
    LoaderErrors.missingName(),
    LoaderErrors.unknownConfigKey('persona', ['toolOrder']),
    LoaderErrors.unknownSectionKey('agents', 'modle', ['id', 'model']),
    LoaderErrors.protoKey(),
    LoaderErrors.wrongType('disabled', 'true or false', 'a string "no"'),
    LoaderErrors.emptyString('name'),
    LoaderErrors.duplicateId('tools', 'plugins[0] (id "tools")', 2),
    LoaderErrors.envMissing('config.root', 'ROOT'),
    LoaderErrors.envMalformed('config.root', '${ROOT'),
    LoaderErrors.envTooDeep('config.root', 8),
    LoaderErrors.unknownPackage('dsh-nothing', ['a', 'b']),
    LoaderErrors.unknownFile('./x.ts', 'x.ts'),
    LoaderErrors.unresolvable('pkg', 'ERR_PACKAGE_PATH_NOT_EXPORTED'),
    LoaderErrors.folderNoEntry('./rules', 'rules', undefined, ['index.js']),
    LoaderErrors.folderBadEntry('./rules', 'rules/package.json', 'main', 'lib/main.js'),
    LoaderErrors.typeScriptUnsupported('./x.ts', 'x.ts', ['.', 'packages/loader']),
    LoaderErrors.importFailed('./x.ts', 'x.ts', 'SyntaxError: oops'),
    LoaderErrors.noPlugin('./x.ts', []),
    LoaderErrors.unsupportedPlugin('p', 'a reason'),
    LoaderErrors.configNotStandard(),
    LoaderErrors.invalidConfig('$.persona expected string but got 42'),
    LoaderErrors.invalidSection('agents', '$[0].id is required'),
    LoaderErrors.applyFailed(new Error('boom')),
    LoaderErrors.missingServices(['tools']),
    LoaderErrors.notActive('PENDING'),
    LoaderErrors.hookFailed(new TypeError('no tools service')),
    LoaderErrors.loadedListenerFailed(new Error('late')),
    LoaderErrors.checkProblem({ message: 'odd', entry: 'ghost' }, false),
  ]

  it('each factory makes its message with its code and details, the words unchanged', () => {
    expect(made).to.deep.equal([
      { code: 'LOADER_UNREADABLE', details: { reason: 'no such file', cause: 'ENOENT' }, message: 'cannot read the deployment file: no such file' },
      { code: 'LOADER_INVALID_UTF8', details: { byte: 0xea }, message: 'the deployment file is not valid UTF-8: byte 0xEA does not start or continue a UTF-8 character (save the file as UTF-8)' },
      { code: 'LOADER_YAML_SYNTAX', details: { reason: 'Missing closing "quote' }, message: 'YAML syntax error: Missing closing "quote' },
      { code: 'LOADER_YAML_VALUE', details: { reason: 'Unresolved alias' }, message: 'invalid YAML value: Unresolved alias' },
      { code: 'LOADER_EMPTY_DEPLOYMENT', details: {}, message: 'the deployment is empty (expected a top-level "plugins:" list)' },
      { code: 'LOADER_TOP_NOT_MAPPING', details: { found: 'a list' }, message: 'the top level must be a mapping with a "plugins:" list, found a list' },
      { code: 'LOADER_MISSING_PLUGINS', details: {}, message: 'missing top-level key "plugins" (the list of plugins to load)' },
      { code: 'LOADER_UNKNOWN_TOP_KEY', details: { key: 'agnets', allowed: ['plugins', 'agents'] }, message: 'unknown top-level key "agnets" (allowed: plugins, agents)' },
      { code: 'LOADER_PLUGINS_NOT_LIST', details: { found: 'a mapping' }, message: '"plugins" must be a list of rows like "- name: <package or ./path>", found a mapping' },
      { code: 'LOADER_ROW_NOT_MAPPING', details: { found: 'a string "x"' }, message: 'a row must be a mapping with a "name:" key, found a string "x"' },
      { code: 'LOADER_UNKNOWN_ROW_KEY', details: { key: 'confg', allowed: ['name', 'id', 'config', 'disabled'] }, message: 'unknown key "confg" (allowed: name, id, config, disabled)' },
      { code: 'LOADER_MISSING_NAME', details: {}, message: 'missing "name" (a package name or a relative path like ./plugin.js)' },
      { code: 'LOADER_UNKNOWN_CONFIG_KEY', details: { key: 'persona', allowed: ['toolOrder'] }, message: 'unknown config key "persona" (allowed: toolOrder)' },
      { code: 'LOADER_UNKNOWN_SECTION_KEY', details: { section: 'agents', key: 'modle', allowed: ['id', 'model'] }, message: 'unknown key "modle" in "agents" (allowed there: id, model)' },
      { code: 'LOADER_PROTO_KEY', details: {}, message: 'the key "__proto__" is not allowed (copying it into an object would replace the object\'s prototype)' },
      { code: 'LOADER_WRONG_TYPE', details: { key: 'disabled', expected: 'true or false', found: 'a string "no"' }, message: '"disabled" must be true or false, found a string "no"' },
      { code: 'LOADER_EMPTY_STRING', details: { key: 'name' }, message: '"name" must not be empty' },
      { code: 'LOADER_DUPLICATE_ID', details: { id: 'tools', other: 'plugins[0] (id "tools")', line: 2 },
        message: 'duplicate id "tools": plugins[0] (id "tools") (line 2) already uses it (ids must be unique in the file; set a distinct "id:")' },
      { code: 'LOADER_ENV_MISSING', details: { key: 'config.root', variable: 'ROOT' },
        message: 'config.root: environment variable "ROOT" is not set (write ${ROOT:-default} to give a default)' },
      { code: 'LOADER_ENV_MALFORMED', details: { key: 'config.root', text: '${ROOT' },
        message: 'config.root: malformed substitution "${ROOT" (write ${NAME} or ${NAME:-default}; $${ for a literal ${)' },
      { code: 'LOADER_ENV_TOO_DEEP', details: { key: 'config.root', limit: 8 },
        message: 'config.root: substitution defaults are nested more than 8 levels deep (${A:-${B}} nests one level)' },
      { code: 'LOADER_UNKNOWN_PACKAGE', details: { name: 'dsh-nothing', tried: ['a', 'b'] }, message: 'unknown plugin "dsh-nothing": no package of that name found from a or from b' },
      { code: 'LOADER_UNKNOWN_FILE', details: { name: './x.ts', path: 'x.ts' }, message: 'unknown plugin "./x.ts": no file x.ts' },
      { code: 'LOADER_UNRESOLVABLE', details: { name: 'pkg', reason: 'ERR_PACKAGE_PATH_NOT_EXPORTED' }, message: 'cannot resolve plugin "pkg": ERR_PACKAGE_PATH_NOT_EXPORTED' },
      { code: 'LOADER_FOLDER_NO_ENTRY', details: { name: './rules', folder: 'rules', manifest: undefined, tried: ['index.js'] },
        message: 'cannot resolve plugin "./rules": the folder rules has no package.json and none of index.js (add a package.json whose "exports" or "main" names the plugin\'s file, or name the file itself in the row, such as "./rules/plugin.js")' },
      { code: 'LOADER_FOLDER_BAD_ENTRY', details: { name: './rules', manifest: 'rules/package.json', field: 'main', entry: 'lib/main.js' },
        message: 'cannot resolve plugin "./rules": rules/package.json names "lib/main.js" in "main", but there is no such file (build the plugin first, or point "main" at the plugin\'s file)' },
      { code: 'LOADER_TYPESCRIPT_UNSUPPORTED', details: { name: './x.ts', path: 'x.ts', tried: ['.', 'packages/loader'], reason: undefined },
        message: 'cannot load plugin "./x.ts" from x.ts: Node.js cannot run TypeScript by itself and tsx was not found from . or from packages/loader (to load it: install tsx next to the deployment (npm install --save-dev tsx) and it is used; or start node with --import tsx/esm; or compile the plugin to JavaScript and name the .js file)' },
      { code: 'LOADER_IMPORT_FAILED', details: { name: './x.ts', path: 'x.ts', reason: 'SyntaxError: oops' }, message: 'cannot load plugin "./x.ts" from x.ts: SyntaxError: oops' },
      { code: 'LOADER_NO_PLUGIN', details: { name: './x.ts', exported: [] },
        message: 'module "./x.ts" exports no plugin (expected a default export that is a function, a class or an object with apply(), or an apply() export; found no exports)' },
      { code: 'LOADER_UNSUPPORTED_PLUGIN', details: { name: 'p', reason: 'a reason' }, message: 'plugin "p" is not supported here: a reason' },
      { code: 'LOADER_CONFIG_NOT_STANDARD', details: {},
        message: 'the plugin\'s Config is not a Standard Schema (cordis 4 validates configs through `~standard`; schemastery >= 3.15 provides it)' },
      { code: 'LOADER_INVALID_CONFIG', details: { issue: '$.persona expected string but got 42' }, message: 'invalid config: $.persona expected string but got 42' },
      { code: 'LOADER_INVALID_SECTION', details: { section: 'agents', issue: '$[0].id is required' }, message: 'invalid "agents": $[0].id is required' },
      { code: 'LOADER_APPLY_FAILED', details: { reason: 'boom', service: undefined }, message: 'apply failed: boom' },
      { code: 'LOADER_MISSING_SERVICES', details: { services: ['tools'] },
        message: 'service "tools" is never provided (this plugin injects it; no active plugin provides it)' },
      { code: 'LOADER_NOT_ACTIVE', details: { state: 'PENDING' }, message: 'the plugin did not become active (state PENDING)' },
      { code: 'LOADER_HOOK_FAILED', details: { reason: 'TypeError: no tools service' }, message: 'afterLoad check failed: TypeError: no tools service' },
      { code: 'LOADER_LOADED_LISTENER_FAILED', details: { reason: 'late' }, message: 'a deployment/loaded listener failed: late' },
      { code: 'LOADER_CHECK_PROBLEM', details: { entry: 'ghost' }, message: '"ghost": odd' },
    ])
    const target = LoaderErrors.invalidTarget('nothing')
    expect([target.name, target.code, target.details, target.message])
      .to.deep.equal(['ValidationError', 'LOADER_INVALID_TARGET', { found: 'nothing' }, '$.target LoggerBridge target must be a writable stream, found nothing'])
    expect(new DeploymentError([]).code).to.equal(LoaderErrors.DEPLOYMENT_FAILED)
  })

  it('a message caused by a thrown error takes that error\'s code, else the loader\'s own', () => {
    expect([LoaderErrors.applyFailed(coded), LoaderErrors.hookFailed(coded), LoaderErrors.loadedListenerFailed(coded)].map((m) => m.code))
      .to.deep.equal(['SOME_PLUGIN_FAILURE', 'SOME_PLUGIN_FAILURE', 'SOME_PLUGIN_FAILURE'])
    expect([LoaderErrors.invalidConfig('x', 'CAUSE_CODE').code, LoaderErrors.invalidSection('k', 'x', 'CAUSE_CODE').code]).to.deep.equal(['CAUSE_CODE', 'CAUSE_CODE'])
    expect([codeOf(coded), codeOf(new Error('plain')), codeOf({ code: '' }), codeOf(undefined)]).to.deep.equal(['SOME_PLUGIN_FAILURE', undefined, undefined, undefined])
  })

  it('detailsOf gives the details of an error with the code asked for, and nothing for another code', () => {
    const withDetails = Object.assign(new Error('x'), { code: 'A_CODE', details: { owner: 'p' } })
    expect(detailsOf(withDetails, 'A_CODE')).to.deep.equal({ owner: 'p' })
    expect(detailsOf(Object.assign(new Error('x'), { code: 'A_CODE' }), 'A_CODE')).to.deep.equal({})
    expect(detailsOf(withDetails, 'OTHER_CODE')).to.equal(undefined)
  })
})

describe('dsh-loader: every problem carries the code of its cause', () => {
  it('the loader\'s own problems have its codes', async () => {
    expect((await codesOf(fixture('syntax.yml'))).map((p) => p.code)).to.deep.equal(['LOADER_YAML_SYNTAX'])
    expect((await codesOf(fixture('unknown-plugin.yml'))).map((p) => p.code)).to.deep.equal(['LOADER_UNKNOWN_PACKAGE', 'LOADER_UNKNOWN_FILE'])
    expect((await codesOf(fixture('missing-service.yml'))).map((p) => p.code)).to.deep.equal(['LOADER_MISSING_SERVICES'])
    expect((await codesOf(fixture('apply-throws.yml'))).map((p) => p.code)).to.deep.equal(['LOADER_APPLY_FAILED'])
    expect((await codesOf(fixture('nowhere.yml'))).map((p) => p.code)).to.deep.equal(['LOADER_UNREADABLE'])
  })

  it('a plugin whose apply throws a coded error gives its code (dsh-presets refusing two presets of one id)', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'dsh-loader-codes-'))
    try {
      const file = join(folder, 'deployment.yml')
      writeFileSync(file, 'plugins:\n  - name: dsh-system-prompt\n  - name: dsh-agent\n  - name: dsh-presets\n    config: { presets: [{ id: a }, { id: a }] }\n')
      expect(await codesOf(file)).to.deep.equal([
        { code: 'PRESETS_DUPLICATE_ID', message: 'apply failed: PresetConfigError: presets lists preset "a" more than once' },
      ])
    } finally {
      rmSync(folder, { recursive: true, force: true })
    }
  })

  it('a plugin\'s config check that throws a coded schemastery error gives the problem its code (the Standard Schema adapter drops it)', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'dsh-loader-codes-'))
    try {
      const file = join(folder, 'deployment.yml')
      writeFileSync(file, [
        'plugins:', '  - name: dsh-system-prompt', '    config: { toolOrder: [read, read] }', '  - name: dsh-tools',
        '  - name: dsh-plugin-filesystem', '    config: { tools: [read, read] }',
        '  - name: dsh-plugin-date', '    config: { timeZone: Mars/Olympus }',
        '  - name: dsh-plugin-shell', '    config: { defaultTimeoutMs: 9000, maxTimeoutMs: 5000 }', '',
      ].join('\n'))
      const { host } = await bootApp()
      const error = await rejection(() => loadDeployment(host, file, { env: {} })) as DeploymentError
      expect(error.problems.map(({ code, key }) => ({ code, key }))).to.deep.equal([
        { code: 'PROMPT_INVALID_TOOL_ORDER', key: 'plugins[0].config' },
        { code: 'FS_REPEATED_TOOL', key: 'plugins[2].config' },
        { code: 'DATE_UNKNOWN_TIME_ZONE', key: 'plugins[3].config' },
        { code: 'SHELL_TIMEOUT_ABOVE_MAX', key: 'plugins[4].config' },
      ])
    } finally {
      rmSync(folder, { recursive: true, force: true })
    }
  })

  it('an afterLoad check keeps the code it reports (LOADER_CHECK_PROBLEM without one) or throws', async () => {
    const afterLoad = [
      () => [{ code: 'CHECK_SAID_SO', message: 'first' }, { message: 'second' }],
      () => { throw coded },
    ]
    expect(await codesOf(fixture('hook-check.yml'), { afterLoad })).to.deep.equal([
      { code: 'CHECK_SAID_SO', message: 'first' },
      { code: 'LOADER_CHECK_PROBLEM', message: 'second' },
      { code: 'SOME_PLUGIN_FAILURE', message: 'afterLoad check failed: coded failure' },
    ])
  })

  it('a section schema\'s issue code, or the code of the error it throws, becomes the problem\'s', async () => {
    const issues = { '~standard': { validate: () => ({ issues: [{ message: 'bad row', path: [0], code: 'SECTION_BAD_ROW' }, { message: 'plain', path: [1] }] }) } }
    const throws = { '~standard': { validate: () => { throw coded } } }
    const problems = await codesOf(fixture('sections.yml'), { sections: { agents: issues, limits: throws } })
    expect(problems.map((p) => p.code)).to.have.members(['SECTION_BAD_ROW', 'LOADER_INVALID_SECTION', 'SOME_PLUGIN_FAILURE'])
  })
})
