/**
 * (i) The cost of a fork (`agent.fork()`: the latest request plus one trailing message, with its body)
 * against an ordinary step with its body, on the heavy workload's agent at 50 turns, per wire format,
 * measured interleaved in the same run so the ratio does not move with the machine.
 */
import type { WireFormat } from 'dsh-wire'
import { heavyHost, steppingAgent } from './heavy-step.js'
import { timeInterleaved, type Sample } from './measure.js'

/** A fork + body and a step + body per format, and the fork's time as a ratio to the step's. */
export async function measureFork(formats: readonly WireFormat[], rounds: number): Promise<Map<WireFormat, { fork: Sample; step: Sample; ratio: number }>> {
  const { host, close } = await heavyHost()
  const results = new Map<WireFormat, { fork: Sample; step: Sample; ratio: number }>()
  for (const format of formats) {
    const { agent, step } = await steppingAgent(host, `fork-${format}`, format)
    const fork = async () => (await agent.fork({ kind: 'title', instruction: 'Name this conversation.', format })).body.length
    for (let i = 0; i < 50; i++) await step()
    await agent.stepDetailed('the request forks repeat', { format })
    const samples = await timeInterleaved({ fork: { op: fork, iterations: 100 }, step: { op: step, iterations: 100 } }, { rounds })
    results.set(format, { ...samples, ratio: samples.fork.median / samples.step.median })
  }
  await close()
  return results
}
