/**
 * The benchmark workload, generated deterministically from a seed (issue 5): a deployment of 40
 * sections, 30 tool schemas from 3 providers, 5 runtime contexts, a toolOrder, two assemble listeners,
 * and an agent scope that shadows 3 sections and 2 variables.
 */
import { random } from 'dsh-testing'
import type { Context } from 'cordis'
import { createScope, type ScopeHandle } from 'dsh-scope'
import { TOOL_ORDER_REST, type PromptAssembly, type ToolSchema } from 'dsh-system-prompt'


const WORDS = ('the agent reads files before editing them and keeps each change small so a reviewer can follow ' +
  'what happened run tests after every edit report failures with the command and its output prefer ' +
  'dedicated tools over shell pipelines when a file tool exists quote paths that contain spaces').split(' ')

export const VARIABLES = Array.from({ length: 10 }, (_, i) => `var_${i}`)

/** Prose of about `length` characters, with `refs` variable references spread through it. */
function prose(next: () => number, length: number, refs: string[]): string {
  let text = ''
  while (text.length < length) text += WORDS[Math.floor(next() * WORDS.length)] + (next() < 0.08 ? '.\n' : ' ')
  text = text.slice(0, length)
  for (const ref of refs) {
    const at = Math.floor(next() * text.length)
    text = text.slice(0, at) + ` {{${ref}}} ` + text.slice(at)
  }
  return text
}

export interface SectionSpec { name: string; order: number; text: string; provider: boolean }
export interface Workload {
  sections: SectionSpec[]
  contexts: { name: string; order: number; text: string }[]
  providers: ToolSchema[][]
  toolOrder: string[]
  shadowSections: SectionSpec[]
  shadowVariables: string[]
  toolBytes: number
}

/** Generates the workload for `seed`. */
export function generate(seed = 20261130): Workload {
  const next = random(seed)
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]
  const sections: SectionSpec[] = []
  for (let i = 0; i < 40; i++) {
    const refs = next() < 0.3 ? Array.from({ length: 1 + Math.floor(next() * 3) }, () => pick(VARIABLES)) : []
    sections.push({
      name: `bench:section-${String(i).padStart(2, '0')}`,
      order: Math.floor(next() * 10) * 100,
      text: prose(next, 200 + Math.floor(next() * 1800), refs),
      provider: i % 3 === 0,
    })
  }
  const contexts = Array.from({ length: 5 }, (_, i) => ({
    name: `bench:context-${i}`, order: 100 + i * 10, text: prose(next, 80 + Math.floor(next() * 200), next() < 0.4 ? [pick(VARIABLES)] : []),
  }))
  const providers: ToolSchema[][] = [[], [], []]
  let toolBytes = 0
  for (let i = 0; i < 30; i++) {
    const properties: Record<string, unknown> = {}
    const count = 3 + Math.floor(next() * 4)
    for (let p = 0; p < count; p++) {
      properties[`param_${p}`] = p % 3 === 0
        ? { type: 'string', description: prose(next, 60 + Math.floor(next() * 80), []), enum: ['alpha', 'beta', 'gamma'] }
        : p % 3 === 1
          ? { type: 'integer', description: prose(next, 40 + Math.floor(next() * 60), []), minimum: 0, maximum: 1000 }
          : { type: 'array', description: prose(next, 50, []), items: { type: 'object', properties: { path: { type: 'string' }, line: { type: 'integer' } }, required: ['path'] } }
    }
    const schema: ToolSchema = {
      name: `tool_${String(i).padStart(2, '0')}`,
      description: prose(next, 250 + Math.floor(next() * 250), []),
      parameters: { type: 'object', properties, required: Object.keys(properties).slice(0, 2), additionalProperties: false },
    }
    toolBytes += JSON.stringify(schema).length
    providers[i % 3].push(schema)
  }
  const toolOrder = ['tool_07', 'tool_03', 'tool_21', TOOL_ORDER_REST, 'tool_11', 'tool_29']
  const shadowSections = [sections[4], sections[17], sections[30]].map((s) => ({ ...s, text: prose(next, 400, ['var_1']) }))
  return { sections, contexts, providers, toolOrder, shadowSections, shadowVariables: ['var_1', 'var_2'], toolBytes }
}

/** Registers the workload's global part through `ctx` (a plugin context that injects `systemPrompt`). */
export function registerGlobal(ctx: Context, workload: Workload): void {
  const prompt = ctx.systemPrompt
  for (const s of workload.sections) {
    prompt.section({ name: s.name, order: s.order, text: s.provider ? () => s.text : s.text })
  }
  for (const c of workload.contexts) prompt.context(c)
  for (const name of VARIABLES) prompt.variable(name, () => `value of ${name}`)
  for (const schemas of workload.providers) prompt.tools(() => ({ schemas }))
  ctx.on('system-prompt/assemble', (assembly: PromptAssembly, _context, next) => next(assembly))
}

/** Creates the agent scope: 3 shadowed sections, 2 shadowed variables, one scoped listener. */
export function createAgent(ctx: Context, workload: Workload): ScopeHandle {
  const agent = createScope(ctx, { agent: 'bench' }, { label: 'agent:bench' })
  const prompt = agent.ctx.systemPrompt
  for (const s of workload.shadowSections) prompt.section({ name: s.name, order: s.order, text: s.text })
  for (const name of workload.shadowVariables) prompt.variable(name, () => `agent value of ${name}`)
  agent.ctx.on('system-prompt/assemble', (assembly: PromptAssembly, _context, next) => next(assembly))
  return agent
}
