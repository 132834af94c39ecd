import { expect } from 'chai'
import type { Context } from 'cordis'
import fc from 'fast-check'
import type { ScopeHandle } from 'dsh-scope'
import { assemblyNotes, renderPrompt, type PromptAssembly } from 'dsh-system-prompt'
import { bootApp, pluginContext, scope, SOAK } from 'dsh-testing'
import { assemblyCase, runEdits, SCOPES, type Case, type Layer, type Plugin, type Registration, schemaOf } from './assembly-programs.js'
import { ID, referenceAssembly, type RefError, type RefOutcome, type RefProvenance } from './assembly-reference.js'
import { BARE } from './helpers.js'

// Issue 19, item 3: the assembly path (view memo, tool check cache, render memo, hand-off snapshots,
// detach) against a naive reference (`assembly-reference.ts`) that deep-copies at every hand-off and
// memoises nothing, on random registrations across scopes, steps between assemblies and listener
// programs (`assembly-programs.ts`). Every assembly compares the result, or the error's code and
// details (the plugin blamed), and the provenance; every result must be as mutable as the rule says.

const RUNS = SOAK ? 5_000 : 300

interface World {
  app: Context
  plugins: Record<Plugin, Context>
  scopes: Record<string, ScopeHandle>
  live: Array<{ registration: Registration; dispose: () => void }>
}

const keyOf = (registration: Registration) => 'name' in registration ? `${registration.layer}|${registration.kind}|${registration.name}` : undefined

function register(world: World, registration: Registration): void {
  const key = keyOf(registration)
  if (key !== undefined && world.live.some((l) => keyOf(l.registration) === key)) return
  const ctx = registration.layer === 'global' ? world.plugins[registration.plugin] : world.scopes[registration.layer].ctx
  const prompt = ctx.systemPrompt
  let dispose: () => void
  switch (registration.kind) {
    case 'section':
    case 'context': {
      const text = registration.dynamic ? () => registration.text : registration.text
      const entry = {
        name: registration.name, order: registration.order, text,
        ...(registration.band ? { band: registration.band } : {}), ...(registration.kind === 'section' && registration.tool ? { tool: registration.tool } : {}),
        ...(registration.kind === 'section' && registration.complete ? { complete: true } : {}),
      }
      dispose = registration.kind === 'section' ? prompt.section(entry) : prompt.context(entry)
      break
    }
    case 'variable': dispose = prompt.variable(registration.name, () => registration.value); break
    case 'tools': dispose = prompt.tools(() => ({ schemas: registration.schemas })); break
    case 'suppress': dispose = prompt.suppressRuntimeContext(); break
  }
  // A registration's data is the reference's too: steps change it for both.
  world.live.push({ registration, dispose })
}

function listen(world: World, program: Case['listeners'][number]): void {
  const ctx = program.layer === 'global' ? world.plugins[program.plugin] : world.scopes[program.layer].ctx
  const same = <T extends object>(value: T) => value
  ctx.on('system-prompt/assemble', async (assembly, _context, next) => {
    const edited = runEdits(assembly, program.before, same)
    let result: PromptAssembly
    if (program.next === 'none') result = runEdits(edited, program.after, same)
    else if (program.next === 'twice') {
      await next(edited)
      return next(edited)
    } else result = runEdits(await (program.next === 'same' ? next() : next({ ...edited })), program.after, same)
    return (program.returns === 'nothing' ? undefined : result) as PromptAssembly
  })
}

/** An assembly as plain data: scope keys by their label, the reference's ids dropped. */
function plain(assembly: PromptAssembly): unknown {
  const entry = (e: object) => {
    const copy: Record<string, unknown> = { ...e }
    delete copy[ID]
    if (typeof copy.scope === 'object' && copy.scope !== null) copy.scope = (copy.scope as { label: string }).label
    return copy
  }
  return { sections: assembly.sections.map(entry), contexts: assembly.contexts.map(entry), tools: assembly.tools.map(entry), variables: assembly.variables }
}

function provenanceOf(assembly: PromptAssembly): RefProvenance {
  const provenance = assemblyNotes(assembly)!.provenance
  const list = (changes: ReadonlyMap<string, { action: string; by: string }>) =>
    [...changes].map(([name, c]): [string, string, string] => [name, c.action, c.by]).sort((a, b) => a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)
  return { sections: list(provenance.sections), contexts: list(provenance.contexts), tools: list(provenance.tools) }
}

/**
 * The mutability rule (docs/guarantees.md): whatever listeners exist, a returned assembly's arrays,
 * entries, tools and variables are its own and writable; what a tool holds (its `parameters`) is deeply
 * frozen. Writes as a caller would make them, which later assemblies must not see.
 */
function checkMutable(assembly: PromptAssembly, where: string): void {
  const open = [assembly.sections, assembly.contexts, assembly.tools, assembly.variables, ...assembly.sections, ...assembly.contexts, ...assembly.tools]
  expect(open.filter((o) => Object.isFrozen(o)), `${where}: frozen parts of the result`).to.deep.equal([])
  for (const tool of assembly.tools) {
    for (const value of Object.values(tool)) if (typeof value === 'object' && value !== null) expect(Object.isFrozen(value), `${where}: ${tool.name} holds a value not frozen`).to.equal(true)
  }
  for (const tool of assembly.tools) tool.description = 'caller'
  for (const section of assembly.sections) section.text = 'caller'
  assembly.tools.push({ name: 'caller' })
  assembly.contexts.unshift({ name: 'caller', text: 'caller' })
  assembly.variables.v0 = 'caller'
}

function errorOf(error: unknown): RefError {
  const coded = error as { code?: unknown; details?: Record<string, unknown> }
  if (typeof coded?.code !== 'string') throw new Error(`an uncoded error: ${(error as Error)?.stack ?? String(error)}`)
  return { code: coded.code, details: coded.details ?? {} }
}

async function runCase(c: Case): Promise<void> {
  const { app, host } = await bootApp({ systemPrompt: { ...BARE, toolOrder: c.toolOrder }, host: { name: 'g1' } })
  const g2 = await pluginContext(app, 'g2', ['systemPrompt'])
  const scopes: Record<string, ScopeHandle> = {}
  scopes.A = scope(host, 'A')
  scopes.B = scope(host, 'B', scopes.A.key)
  scopes.C = scope(host, 'C')
  const world: World = { app, plugins: { g1: host, g2 }, scopes, live: [] }
  for (const registration of structuredClone(c.registrations)) register(world, registration)
  for (const program of c.listeners) listen(world, program)
  const pick = <T>(list: T[], n: number) => list.length ? list[n % list.length] : undefined
  for (const [i, step] of c.steps.entries()) {
    const where = `step ${i} (${JSON.stringify(step)})`
    const regs = world.live.map((l) => l.registration)
    switch (step.step) {
      case 'text': {
        const r = pick(regs.filter((x) => (x.kind === 'section' || x.kind === 'context') && x.dynamic), step.pick)
        if (r && 'text' in r) r.text = step.text
        break
      }
      case 'variable': {
        const r = pick(regs.filter((x) => x.kind === 'variable'), step.pick)
        if (r && r.kind === 'variable') r.value = step.value
        break
      }
      case 'tools': {
        const r = pick(regs.filter((x) => x.kind === 'tools'), step.pick)
        if (!r || r.kind !== 'tools') break
        if (step.how === 'replace' && r.schemas.length) r.schemas[step.index % r.schemas.length] = schemaOf(step.tool)
        if (step.how === 'push') r.schemas.push(schemaOf(step.tool))
        if (step.how === 'pop') r.schemas.pop()
        if (step.how === 'refill') r.schemas = r.schemas.map((s) => ({ ...s }))
        break
      }
      case 'register': register(world, structuredClone(step.registration)); break
      case 'dispose': {
        const live = pick(world.live, step.pick)
        if (live) {
          live.dispose()
          world.live.splice(world.live.indexOf(live), 1)
        }
        break
      }
      case 'assemble': {
        const context = step.target === 'global' ? {} : { scope: scopes[step.target as Exclude<Layer, 'global'>].key }
        let real: PromptAssembly | undefined
        let failure: unknown
        try {
          real = await app.systemPrompt.assemble(context)
        } catch (error) {
          failure = error
        }
        const expected: RefOutcome = referenceAssembly(world.live.map((l) => l.registration), c.listeners, step.target, c.toolOrder)
        if ('error' in expected) {
          expect(failure && errorOf(failure).code, `${where}: the error code (got ${real ? 'an assembly' : ''})`).to.equal(expected.error.code)
          const details = errorOf(failure).details
          for (const key of Object.keys(expected.error.details)) expect(details[key], `${where}: error details.${key}`).to.deep.equal(expected.error.details[key])
          break
        }
        if (failure !== undefined) expect.fail(`${where}: expected an assembly, got ${JSON.stringify(errorOf(failure))}`)
        expect(plain(real!), `${where}: the assembly`).to.deep.equal(plain(expected.assembly))
        expect(provenanceOf(real!), `${where}: the provenance`).to.deep.equal(expected.provenance)
        expect(attempt(() => renderPrompt(real!)), `${where}: the render`).to.deep.equal(attempt(() => renderPrompt(expected.assembly)))
        if (step.mutate) checkMutable(real!, where)
        break
      }
    }
  }
  for (const handle of SCOPES.map((s) => scopes[s]).reverse()) await handle.dispose()
}

/** What `run` returns, or the message of what it throws. */
function attempt(run: () => string): { ok: string } | { error: string } {
  try {
    return { ok: run() }
  } catch (error) {
    return { error: (error as Error).message }
  }
}

describe('dsh-system-prompt: the assembly path against a naive reference (model) (soak)', function () {
  this.timeout(SOAK ? 0 : 120_000)

  it(`assembles what the reference does, fails as it does (code and plugin), records the same provenance, and hands back an equally mutable result, over random registrations and listener programs (${RUNS} cases) (property)`, async () => {
    await fc.assert(fc.asyncProperty(assemblyCase, runCase), { numRuns: RUNS })
  })

  it('keeps the published tool-push pattern (a listener pushing a tool before next()) as a fixed case', async () => {
    await runCase({
      toolOrder: undefined,
      registrations: [{ kind: 'tools', layer: 'global', plugin: 'g1', schemas: [schemaOf({ name: 't0', description: 'Read.', title: 'p' })] }],
      listeners: [{ layer: 'global', plugin: 'g2', before: [{ edit: 'insert', list: 'tools', at: 'push', index: 0, name: 'n0' }], next: 'same', after: [], returns: 'it' }],
      steps: [{ step: 'assemble', target: 'global', mutate: true }, { step: 'assemble', target: 'B', mutate: false }],
    })
  })
})
