/**
 * The harness example's long conversation and its compaction (run.ts calls it after the six turns):
 * eight more turns, then a summary asked of the model through a `compact` fork (the agent's latest
 * request byte for byte plus one instruction), handed to `agent.planCompaction()`, which prices both
 * re-anchors before anything is paid; the plan's choice opens a new epoch, and the conversation goes
 * on from the summary and the last two turns. The mock server checks that the first request after it
 * keeps the opening system prompt of the request before, and reports usage, so the epoch's predicted
 * cost meets the reported one.
 * @module
 */
import type OpenAI from 'openai'
import { epochLine, replyAccumulator, type Agent } from 'dsh-agent'

/** One user turn of the harness (run.ts's `turn`). */
type Turn = (client: OpenAI, agent: Agent, input: string) => Promise<{ answer: string; requests: number }>

/** Runs eight more turns, compacts through a fork keeping the last two, and goes on for two turns; returns the requests sent. */
export async function compactAndGoOn(client: OpenAI, agent: Agent, turn: Turn): Promise<number> {
  let sent = 0
  for (let index = 1; index <= 8; index++) sent += (await turn(client, agent, `Remember item ${index} of the release checklist.`)).requests
  const before = agent.conversation.length
  // What to summarise, and the instruction for the fork (a verbatim section is never in it).
  const source = await agent.compactionSource({ keep: { turns: 2 } })
  const fork = await agent.fork({ kind: 'compact', instruction: source.instruction, format: 'openai-chat' })
  // The fork repeats the latest request, its fields included: it streams as the turns do.
  const reply = replyAccumulator('openai-chat')
  for await (const chunk of await client.chat.completions.create({ ...fork.request, stream: true })) reply.push(chunk)
  sent++
  const answer = reply.result()
  fork.record(answer, { format: 'openai-chat' })
  const summary = answer.choices[0].message.content ?? ''
  const plan = await agent.planCompaction({ summary, keep: { turns: 2 } })
  const offers = plan.offered.map((offer) => `${offer.kind} ${offer.costNow} now + ${offer.costPerRequest}/request`).join('; ')
  const epoch = plan.apply()
  console.log(`compacted: ${before} messages -> ${agent.conversation.length} (${source.summarised} summarised through a compact fork); offered ${offers}; chose ${epoch.reanchor}`)
  for (const input of ['What was item 8 again?', 'Thanks, that is all.']) {
    const { answer, requests } = await turn(client, agent, input)
    sent += requests
    console.log(`after the compaction: ${input}\n  -> ${answer}`)
  }
  if (agent.epochs.length !== 1 || epoch.reported === undefined) throw new Error('the epoch was not opened, or its first reply brought no usage')
  console.log(`ok: ${epochLine(epoch)}`)
  return sent
}
