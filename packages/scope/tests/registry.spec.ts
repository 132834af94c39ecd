import { expect } from 'chai'
import { Context } from 'cordis'
import {
  createScope, scopeChain, ScopedRegistry, type RegistryChange, type ScopeKey, type ScopedRegistryOptions,
} from 'dsh-scope'
import { captureLogs, loadPlugin, thrown } from 'dsh-testing'

// Entries shaped like dsh-system-prompt's: named text and variables, anonymous tool providers.
interface TextEntry { kind: 'section' | 'context'; name: string; text: string; owner: string; scope: ScopeKey | undefined }
interface VariableEntry { kind: 'variable'; name: string; owner: string; scope: ScopeKey | undefined }
interface ToolsEntry { kind: 'tools'; id: number; owner: string; scope: ScopeKey | undefined }
type Entry = TextEntry | VariableEntry | ToolsEntry

/** dsh-system-prompt's change event and warning text today (service.ts), rebuilt from a registry change. */
function promptChange({ action, entry }: RegistryChange<Entry>) {
  return { kind: entry.kind, action, owner: entry.owner, ...'name' in entry && { name: entry.name } }
}
function promptChangeFailed(change: RegistryChange<Entry>, error: unknown): string {
  const event = promptChange(change)
  return `a system-prompt/change listener failed on ${event.action} of ${event.kind}${event.name ? ` "${event.name}"` : ''}: ${error instanceof Error ? error.message : String(error)}`
}

/** An app with a host plugin, a registry shaped like the prompt's, its change log and captured logs; `extra` overrides options. */
async function setup(extra: (app: Context) => Partial<ScopedRegistryOptions<Entry>> = () => ({})) {
  const app = new Context()
  const logs = captureLogs(app)
  const host = await loadPlugin(app, 'host')
  const changes: string[] = []
  const registry = new ScopedRegistry<Entry>({
    onDuplicate: (entry, scoped) => new Error(scoped
      ? `prompt ${entry.kind} "${entry.name}" is already registered in this scope`
      : `prompt ${entry.kind} "${entry.name}" is already registered (register the second one through a narrower scope to shadow it there)`),
    onChange: (change) => { changes.push(`${change.action} ${change.entry.kind} ${'name' in change.entry ? change.entry.name : `#${change.entry.id}`} by ${change.entry.owner}`) },
    changeFailed: promptChangeFailed,
    logger: app.logger('dsh-system-prompt'),
    ...extra(app),
  } as ScopedRegistryOptions<Entry>)
  return { app, logs, host, registry, changes }
}

describe('dsh-scope: ScopedRegistry', () => {
  describe('register()', () => {
    it('fills in owner and layer from the registering context: a plugin files globally, a scope in its layer', async () => {
      const { host, registry } = await setup()
      const scope = createScope(host.ctx, { id: 'agent' }, { label: 'agent:a' })
      registry.register(host.ctx, { kind: 'section', name: 'rules', text: 'Global.' })
      registry.register(scope.ctx, { kind: 'section', name: 'rules', text: 'Scoped.' })
      expect(registry.layers.get(undefined, registry.keyOf({ kind: 'section', name: 'rules' }))).to.include({ owner: 'host', scope: undefined })
      expect(registry.layers.get(scope.key, registry.keyOf({ kind: 'section', name: 'rules' }))).to.include({ owner: 'agent:a', scope: scope.key })
    })

    it('gives an entry without a name an id, increasing in registration order', async () => {
      const { host, registry } = await setup()
      registry.register(host.ctx, { kind: 'tools' })
      registry.register(host.ctx, { kind: 'section', name: 'a', text: '' })
      registry.register(host.ctx, { kind: 'tools' })
      const ids = [...registry.layers.entries(undefined)].map(([, entry]) => entry).filter((e) => e.kind === 'tools').map((e) => e.id)
      expect(ids).to.deep.equal([1, 2])
    })

    it('keeps kinds in separate name spaces, and names apart from ids, whatever the kind is called', () => {
      const registry = new ScopedRegistry<Entry>({ onDuplicate: () => new Error('dup') })
      const keys = [
        registry.keyOf({ kind: 'section', name: 'x' }), registry.keyOf({ kind: 'context', name: 'x' }),
        registry.keyOf({ kind: 'a', name: '1' }), registry.keyOf({ kind: 'a', id: 1 }),
        registry.keyOf({ kind: 'a', name: 'b:c' }), registry.keyOf({ kind: 'a:b', name: 'c' }),
        registry.keyOf({ kind: 'a', name: 'b#1' }), registry.keyOf({ kind: 'a:b', id: 1 }),
      ]
      expect(new Set(keys).size).to.equal(keys.length)
    })

    it('refuses a taken name in the global layer with the caller\'s global error, before anything is registered', async () => {
      const { host, registry, changes } = await setup()
      registry.register(host.ctx, { kind: 'section', name: 'rules', text: 'First.' })
      const before = host.ctx.fiber.getEffects().length
      let attached = false
      const error = thrown(() => registry.register(host.ctx, { kind: 'section', name: 'rules', text: 'Second.' }, () => { attached = true; return undefined }))
      expect(error.message).to.equal('prompt section "rules" is already registered (register the second one through a narrower scope to shadow it there)')
      expect(attached).to.equal(false)
      expect(host.ctx.fiber.getEffects().length).to.equal(before)
      expect(changes).to.deep.equal(['register section rules by host'])
      expect(registry.layers.stats().entries).to.equal(1)
    })

    it('refuses a taken name in a scope\'s layer with the caller\'s scoped error', async () => {
      const { host, registry } = await setup()
      const scope = createScope(host.ctx, {})
      registry.register(scope.ctx, { kind: 'variable', name: 'team' })
      expect(() => registry.register(scope.ctx, { kind: 'variable', name: 'team' }))
        .to.throw('prompt variable "team" is already registered in this scope')
    })

    it('lets a scope shadow a global name and the same name live in two kinds', async () => {
      const { host, registry } = await setup()
      const scope = createScope(host.ctx, {})
      registry.register(host.ctx, { kind: 'section', name: 'rules', text: 'Global.' })
      registry.register(host.ctx, { kind: 'context', name: 'rules', text: 'A context.' })
      registry.register(scope.ctx, { kind: 'section', name: 'rules', text: 'Scoped.' })
      const view = registry.layers.resolve(scopeChain(host.ctx, scope.key))
      expect([...view.values()].map(({ value }) => (value as TextEntry).text)).to.have.members(['Scoped.', 'A context.'])
    })

    it('refuses an inactive owner with Cordis\'s error, files nothing and runs the attached cleanup', async () => {
      const { app, registry, changes } = await setup()
      const gone = await loadPlugin(app, 'gone')
      await gone.dispose()
      const log: string[] = []
      expect(() => registry.register(gone.ctx, { kind: 'tools' }, () => () => { log.push('detached') }))
        .to.throw('cannot create effect on inactive context')
      expect(log).to.deep.equal(['detached'])
      expect(registry.layers.stats().entries).to.equal(0)
      expect(changes).to.deep.equal([])
    })
  })

  describe('disposal', () => {
    it('the disposer takes the entry out once and reports it once', async () => {
      const { host, registry, changes } = await setup()
      const dispose = registry.register(host.ctx, { kind: 'section', name: 'rules', text: '' })
      dispose()
      dispose()
      expect(registry.layers.stats().entries).to.equal(0)
      expect(changes).to.deep.equal(['register section rules by host', 'dispose section rules by host'])
    })

    it('goes with the registering plugin, and with the registering scope', async () => {
      const { app, host, registry, changes } = await setup()
      const plugin = await loadPlugin(app, 'helper')
      const scope = createScope(host.ctx, {}, { label: 'agent:a' })
      registry.register(plugin.ctx, { kind: 'tools' })
      registry.register(scope.ctx, { kind: 'variable', name: 'team' })
      await scope.dispose()
      await plugin.dispose()
      expect(registry.layers.stats()).to.deep.include({ entries: 0, scopeLayers: 0 })
      expect(changes.slice(2)).to.deep.equal(['dispose variable team by agent:a', 'dispose tools #1 by helper'])
    })

    it('runs the attached cleanup when the entry goes, before the entry is taken out', async () => {
      const { host, registry } = await setup()
      const log: string[] = []
      const dispose = registry.register(host.ctx, { kind: 'section', name: 'tool:read', text: '' }, (entry) => () => {
        log.push(`cleanup, still filed: ${registry.layers.has(entry.scope, registry.keyOf(entry))}`)
      })
      dispose()
      dispose()
      expect(log).to.deep.equal(['cleanup, still filed: true'])
    })

    it('remove() is what the disposer does: a second remove or a stale entry changes nothing', async () => {
      const { host, registry, changes } = await setup()
      registry.register(host.ctx, { kind: 'variable', name: 'team' })
      const [[, entry]] = registry.layers.entries(undefined)
      expect(registry.remove(entry)).to.equal(true)
      expect(registry.remove(entry)).to.equal(false)
      registry.register(host.ctx, { kind: 'variable', name: 'team' })
      expect(registry.remove(entry)).to.equal(false)
      expect(registry.layers.stats().entries).to.equal(1)
      expect(changes).to.have.length(3)
    })

    it('tears registry entries down with the owner\'s other effects, last-in first-out', async () => {
      const { app, registry } = await setup(() => ({ onChange: ({ action, entry }) => { if (action === 'dispose') log.push(entry.kind) } }))
      const log: string[] = []
      const plugin = await loadPlugin(app, 'mixer')
      registry.register(plugin.ctx, { kind: 'section', name: 'a', text: '' })
      plugin.ctx.effect(() => () => { log.push('effect') })
      registry.register(plugin.ctx, { kind: 'tools' })
      await plugin.dispose()
      expect(log).to.deep.equal(['tools', 'effect', 'section'])
    })
  })

  describe('change reports cannot veto', () => {
    it('a throwing onChange is logged with the caller\'s text; the registration stands and its disposer works', async () => {
      const { host, logs, registry } = await setup(() => ({ onChange: () => { throw new Error('listener broke') } }))
      const dispose = registry.register(host.ctx, { kind: 'section', name: 'rules', text: '' })
      expect(registry.layers.stats().entries).to.equal(1)
      dispose()
      expect(registry.layers.stats().entries).to.equal(0)
      expect(logs.filter((log) => log.type === 'warn').map((log) => log.line)).to.deep.equal([
        'warn dsh-system-prompt: a system-prompt/change listener failed on register of section "rules": listener broke',
        'warn dsh-system-prompt: a system-prompt/change listener failed on dispose of section "rules": listener broke',
      ])
    })

    it('logs a catalogue warning object by its message, verbatim even with a % in it', async () => {
      // dsh-tools' text today (tools/src/service.ts), as a catalogue warning object.
      const { host, logs, registry } = await setup((app) => ({
        onChange: () => { throw new Error('broke at 100%s') },
        changeFailed: ({ action, entry }, error) => ({
          code: 'TOOLS_CHANGE_LISTENER_FAILED', details: { action, kind: entry.kind },
          message: `a tools/change listener failed on ${action} of ${entry.kind}${'name' in entry ? ` "${entry.name}"` : ''}: ${error instanceof Error ? error.message : String(error)}`,
        }),
        logger: app.logger('dsh-tools'),
      }))
      registry.register(host.ctx, { kind: 'variable', name: 'read' })
      expect(logs.filter((log) => log.type === 'warn').map((log) => log.line)).to.deep.equal([
        'warn dsh-tools: a tools/change listener failed on register of variable "read": broke at 100%s',
      ])
    })

    it('reports nothing, and needs no logger, without an onChange', async () => {
      const app = new Context()
      const host = await loadPlugin(app, 'host')
      const registry = new ScopedRegistry<Entry>({ onDuplicate: () => new Error('dup') })
      registry.register(host.ctx, { kind: 'tools' })()
      expect(registry.layers.stats().entries).to.equal(0)
    })
  })
})
