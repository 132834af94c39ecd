/**
 * The heavy workload, the benchmark's headline case: shaped like the published implementation's own
 * benchmark, written afresh from its description. 43 sections (about 48 K characters, 13 of them text
 * providers) with 120 `{{variable}}` references over 10 variables; 29 tool schemas (about 36 KB of JSON:
 * nested objects, arrays, enums) from 3 providers, one of which hides a tool in the scope and reports
 * `knownNames`; 5 runtime contexts; a `toolOrder`; one scope that shadows 3 sections and 2 variables; a
 * global pass-through listener and a scoped listener that adds a section.
 */
import type { Context } from 'cordis'
import { createScope, type ScopeHandle } from 'dsh-scope'
import { TOOL_ORDER_REST, type PromptAssembly, type ToolSchema } from 'dsh-system-prompt'
import { random } from 'dsh-testing'

const WORDS = ('review each change against the plan before it is applied keep the diff small and explain why ' +
  'a file changed cite the lines you rely on prefer the repository tools over ad hoc scripts when a test ' +
  'fails read its output first and never hide a failure behind a retry').split(' ')
const VARIABLES = Array.from({ length: 10 }, (_, i) => `v${i}`)

/** What the heavy workload registers. */
export interface HeavyWorkload {
  readonly sections: { name: string; order: number; text: string; provider: boolean }[]
  readonly contexts: { name: string; order: number; text: string }[]
  readonly providers: ToolSchema[][]
  readonly hidden: string
  readonly toolOrder: string[]
  readonly textChars: number
  readonly references: number
  readonly toolBytes: number
}

/** Generates the heavy workload from `seed`; the same seed gives the same workload. */
export function generateHeavy(seed = 20261201): HeavyWorkload {
  const next = random(seed)
  const word = () => WORDS[Math.floor(next() * WORDS.length)]
  const text = (length: number) => {
    let out = ''
    while (out.length < length) out += word() + (next() < 0.07 ? '.\n' : ' ')
    return out.slice(0, length)
  }
  // 120 references spread over the 43 sections, every variable used.
  const refs: string[][] = Array.from({ length: 43 }, () => [])
  for (let r = 0; r < 120; r++) refs[r % 43].push(VARIABLES[r % VARIABLES.length])
  const sections = refs.map((names, i) => {
    let body = text(700 + Math.floor(next() * 1000))
    for (const name of names) {
      const at = Math.floor(next() * body.length)
      body = `${body.slice(0, at)} {{${name}}} ${body.slice(at)}`
    }
    // Exactly 13 of the 43 are text providers: every third, from the first.
    return { name: `heavy:section-${String(i).padStart(2, '0')}`, order: (i % 9) * 100 + i, text: body, provider: i % 3 === 0 && i < 39 }
  })
  const contexts = Array.from({ length: 5 }, (_, i) => ({ name: `heavy:context-${i}`, order: 100 + i, text: text(120) + ` {{${VARIABLES[i]}}}` }))
  const providers: ToolSchema[][] = [[], [], []]
  for (let t = 0; t < 29; t++) {
    const properties: Record<string, unknown> = {}
    for (let p = 0; p < 5; p++) {
      properties[`p${p}`] = p % 3 === 0
        ? { type: 'string', description: text(70), enum: ['fast', 'careful', 'exhaustive', 'none'] }
        : p % 3 === 1
          ? { type: 'object', description: text(50), properties: { path: { type: 'string' }, range: { type: 'array', items: { type: 'integer' }, minItems: 2, maxItems: 2 } }, required: ['path'] }
          : { type: 'array', description: text(60), items: { type: 'object', properties: { key: { type: 'string' }, value: { type: 'number' } } } }
    }
    providers[t % 3].push({ name: `heavy_tool_${String(t).padStart(2, '0')}`, description: text(300), parameters: { type: 'object', properties, required: ['p0'] } })
  }
  const textChars = sections.reduce((n, s) => n + s.text.length, 0)
  const toolBytes = providers.flat().reduce((n, s) => n + JSON.stringify(s).length, 0)
  const toolOrder = ['heavy_tool_05', 'heavy_tool_01', TOOL_ORDER_REST, 'heavy_tool_28']
  return { sections, contexts, providers, hidden: 'heavy_tool_02', toolOrder, textChars, references: 120, toolBytes }
}

/** Registers the global part through `ctx` (a plugin context injecting `systemPrompt`). */
export function registerHeavy(ctx: Context, workload: HeavyWorkload, agentKey: object): void {
  const prompt = ctx.systemPrompt
  for (const s of workload.sections) prompt.section({ name: s.name, order: s.order, text: s.provider ? () => s.text : s.text })
  for (const c of workload.contexts) prompt.context(c)
  for (let i = 0; i < 10; i++) prompt.variable(`v${i}`, () => `value ${i}`)
  const [first, second, third] = workload.providers
  prompt.tools(() => ({ schemas: first }))
  prompt.tools(() => ({ schemas: second }))
  // The third provider hides one tool in the agent's scope and reports its whole universe.
  const visible = third.filter((s) => s.name !== workload.hidden)
  const known = third.map((s) => s.name)
  prompt.tools((context) => context.scope === agentKey ? { schemas: visible, knownNames: known } : { schemas: third, knownNames: known })
  ctx.on('system-prompt/assemble', (assembly: PromptAssembly, _context, next) => next(assembly))
}

/** The scope: 3 shadowed sections, 2 shadowed variables, and a listener that adds a section. */
export function createHeavyScope(ctx: Context, workload: HeavyWorkload, key: object): ScopeHandle {
  const scope = createScope(ctx, key, { label: 'agent:heavy' })
  const prompt = scope.ctx.systemPrompt
  for (const s of [workload.sections[5], workload.sections[20], workload.sections[33]]) prompt.section({ name: s.name, order: s.order, text: `Scoped: ${s.text}` })
  prompt.variable('v1', () => 'scoped value 1')
  prompt.variable('v2', () => 'scoped value 2')
  scope.ctx.on('system-prompt/assemble', async (assembly: PromptAssembly, _context, next) => {
    const result = await next(assembly)
    return { ...result, sections: [...result.sections, { name: 'heavy:listener-added', order: 5000, text: 'Added by the scoped listener.' }] }
  })
  return scope
}
