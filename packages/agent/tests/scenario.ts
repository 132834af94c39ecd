/**
 * The six-turn conversation the conversation, preset and replace specs assert on. One deployment, three
 * agents stepping side by side:
 * - `coder` (append policy): its own persona from turn 3;
 * - `reviewer` (preset `reviewer`, whose persona shadows the deployment's);
 * - `mirror` (per-agent `promptChange: 'replace'`): the same inputs and changes as `coder`.
 *
 * Turn 1: a global section, the `read` tool, and the `editor` context plugin (one open file).
 * Turn 2: the open files change.        Turn 3: `coder` and `mirror` get their own persona.
 * Turn 4: the `grep` tool plugin is loaded and the open files change.
 * Turn 5: the `editor` plugin is disposed. Turn 6: nothing changes.
 * @module
 */
import type { Context } from 'cordis'
import type { Agent, ChatMessage, RequestBodies, StepOptions, WireFormat } from 'dsh-agent'
import { bootApp, tool } from 'dsh-testing'
import { HEADING, IDENTITY, NONE } from './helpers.js'

/** What each agent sent, one request per turn, in format `F`. */
export interface SixTurns<F extends WireFormat = 'openai-chat'> {
  app: Context
  coder: RequestBodies[F][]
  reviewer: RequestBodies[F][]
  mirror: RequestBodies[F][]
}

/** The user inputs of `coder` and `mirror`; turn 2 has none (the loop continues after a tool result). */
export const CODER_INPUTS = [
  'The cart total is wrong when a coupon is applied. Please fix it.',
  undefined,
  'Go ahead and fix it.',
  'Please add a test for it too.',
  'Thanks, that is all for now.',
  'One last question: does the fix cover percentage coupons?',
] as const

/** The user inputs of `reviewer`. */
export const REVIEWER_INPUTS = [
  'Review the coupon fix when it is ready.',
  'Any progress?',
  'Is it fixed?',
  'Check the new test as well.',
  'Thanks.',
  'Anything else?',
] as const

/** Runs the six turns and returns every request, each step taking `options` (its `format`: default `openai-chat`). */
export async function runSixTurns<F extends WireFormat = 'openai-chat'>(options: StepOptions<F> = {}): Promise<SixTurns<F>> {
  const { app, host: ctx } = await bootApp({ systemPrompt: { persona: 'You are a coding agent. Work in {{cwd}}.' }, tools: true, agents: true, host: { name: 'harness' } })

  await app.plugin({ name: 'house-rules', inject: ['systemPrompt'], apply(ctx: Context) {
    ctx.systemPrompt.section({ name: 'house:rules', order: 100, text: RULES })
  } })
  await app.plugin({ name: 'fs', inject: ['tools'], apply(ctx: Context) {
    ctx.tools.register(tool('read', { description: 'Read a file.', guidance: READ_GUIDANCE }))
  } })
  let openFiles = ['src/cart.ts']
  const editor = app.plugin({ name: 'editor', inject: ['systemPrompt'], apply(ctx: Context) {
    ctx.systemPrompt.context({ name: 'editor:open-files', order: 200, text: () => `Open files: ${openFiles.join(', ')}` })
  } }) as unknown as PromiseLike<void> & { dispose(): unknown }
  await editor

  const preset = ctx.agents.definePreset('reviewer')
  preset.ctx.systemPrompt.section({ name: 'deployment:persona', order: 0, text: 'You review changes in {{cwd}}. You never edit files yourself.' })

  // The pinned bodies declare the live tools at every turn (the tool-change policy of before issue 21).
  const coder = await ctx.agents.create({ id: 'coder', model: 'deepseek-chat', cwd: '/work/shop', toolChange: 'immediate' })
  const reviewer = await ctx.agents.create({ id: 'reviewer', model: 'deepseek-chat', cwd: '/work/shop', preset: 'reviewer', toolChange: 'immediate' })
  const mirror = await ctx.agents.create({ id: 'mirror', model: 'deepseek-chat', cwd: '/work/shop', promptChange: 'replace', toolChange: 'immediate' })
  const run: SixTurns<F> = { app, coder: [], reviewer: [], mirror: [] }
  const both = [coder, mirror]

  const step = async (turn: number) => {
    for (const agent of both) {
      const request = await agent.step(CODER_INPUTS[turn], options)
      ;(agent === coder ? run.coder : run.mirror).push(request)
    }
    run.reviewer.push(await reviewer.step(REVIEWER_INPUTS[turn], options))
  }
  const reply = (agents: Agent[], content: string) => { for (const agent of agents) agent.record({ role: 'assistant', content }) }

  // Turn 1
  await step(0)
  for (const agent of both) {
    agent.record({ role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read', arguments: '{"path":"src/cart.ts"}' } }] })
    agent.record({ role: 'tool', tool_call_id: 'call_1', content: 'export const total = (items, coupon) => sum(items) - coupon.off - coupon.off' })
  }
  reply([reviewer], 'I will review it once it is ready.')
  // Turn 2
  openFiles = ['src/cart.ts', 'src/coupon.ts']
  await step(1)
  reply(both, 'The coupon is subtracted twice in src/cart.ts.')
  reply([reviewer], 'Not yet.')
  // Turn 3
  for (const agent of both) {
    agent.ctx.systemPrompt.section({ name: 'deployment:persona', order: 0, text: 'You are a careful coding agent. Work in {{cwd}} and ask before deleting files.' })
  }
  await step(2)
  reply(both, 'Fixed: the coupon is now subtracted once.')
  reply([reviewer], 'The fix looks right.')
  // Turn 4
  await app.plugin({ name: 'search', inject: ['tools'], apply(ctx: Context) {
    ctx.tools.register(tool('grep', { description: 'Search files.', guidance: GREP_GUIDANCE }))
  } })
  openFiles = ['src/cart.ts', 'tests/cart.spec.ts']
  await step(3)
  reply(both, 'Added tests/cart.spec.ts.')
  reply([reviewer], 'The test covers it.')
  // Turn 5
  await editor.dispose()
  await step(4)
  reply(both, 'You are welcome.')
  reply([reviewer], 'Done.')
  // Turn 6
  await step(5)
  return run
}

export const RULES = 'Keep each change small and say why you made it.'
export const READ_GUIDANCE = 'Read a file before you change it, and quote the lines you rely on.'
export const GREP_GUIDANCE = 'Search with grep before you read whole files.'
export const CAREFUL = 'You are a careful coding agent. Work in /work/shop and ask before deleting files.'

/**
 * The messages of the six-turn chat (`coder`, and `mirror` under the replace policy: same inputs and
 * changes), named by the turn that adds them.
 */
export const SIX_TURN_MESSAGES = {
  system1: { role: 'system', content: `${IDENTITY}\n\nYou are a coding agent. Work in /work/shop.\n\n${RULES}\n\n${READ_GUIDANCE}` },
  system3: { role: 'system', content: `${IDENTITY}\n\n${CAREFUL}\n\n${RULES}\n\n${READ_GUIDANCE}` },
  system4: { role: 'system', content: `${IDENTITY}\n\n${CAREFUL}\n\n${RULES}\n\n${READ_GUIDANCE}\n\n${GREP_GUIDANCE}` },
  user1: { role: 'user', content: 'The cart total is wrong when a coupon is applied. Please fix it.' },
  snapshot1: { role: 'user', content: `${HEADING}\n\nOpen files: src/cart.ts` },
  call1: { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read', arguments: '{"path":"src/cart.ts"}' } }] },
  result1: { role: 'tool', content: 'export const total = (items, coupon) => sum(items) - coupon.off - coupon.off', tool_call_id: 'call_1' },
  snapshot2: { role: 'user', content: `${HEADING}\n\nOpen files: src/cart.ts, src/coupon.ts` },
  reply2: { role: 'assistant', content: 'The coupon is subtracted twice in src/cart.ts.' },
  user3: { role: 'user', content: 'Go ahead and fix it.' },
  reply3: { role: 'assistant', content: 'Fixed: the coupon is now subtracted once.' },
  user4: { role: 'user', content: 'Please add a test for it too.' },
  snapshot4: { role: 'user', content: `${HEADING}\n\nOpen files: src/cart.ts, tests/cart.spec.ts` },
  reply4: { role: 'assistant', content: 'Added tests/cart.spec.ts.' },
  user5: { role: 'user', content: 'Thanks, that is all for now.' },
  none5: { role: 'user', content: NONE },
  reply5: { role: 'assistant', content: 'You are welcome.' },
  user6: { role: 'user', content: 'One last question: does the fix cover percentage coupons?' },
} satisfies Record<string, ChatMessage>
