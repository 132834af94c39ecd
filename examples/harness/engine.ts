/**
 * The harness loop against a real engine instead of the mock: llama.cpp's server (`llama-server`) at
 * `DSH_LLAMA_SERVER`, serving the GGUF model at `DSH_LLAMA_MODEL`. The llama.cpp family is made for
 * that model (its vocabulary and chat template read from the file) and registered; the agent names it
 * as its provider. Each of the six turns goes through the official `openai` client, the whole reply is
 * recorded with its usage, and the reuse report's prediction is printed beside the server's figure.
 * Run the server with one slot and the host-memory prompt cache off (`-np 1 --cache-ram 0 --jinja`) for
 * the two to agree exactly (docs/self-hosted.md); the engine test tier runs this file against its own
 * server and tiny model (scripts/tests/engine.spec.ts).
 *
 *   DSH_LLAMA_SERVER=http://127.0.0.1:8080 DSH_LLAMA_MODEL=/models/model.gguf node --import tsx/esm examples/harness/engine.ts
 *
 * It exits 1, naming the request, when a prediction and the server's figure differ.
 * @module
 */
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import OpenAI from 'openai'
import { bootDeployment } from 'dsh-boot'
import { llamaCppFamily, registerProvider } from 'dsh-wire'

const HERE = dirname(fileURLToPath(import.meta.url))
const TURNS = ['Hello! What can you do?', 'I keep my release notes in a file.', 'What does notes.md say about the first release?', 'Thanks.']

async function main(): Promise<void> {
  const url = process.env.DSH_LLAMA_SERVER
  const model = process.env.DSH_LLAMA_MODEL
  if (!url || !model) throw new Error('set DSH_LLAMA_SERVER (the server\'s address) and DSH_LLAMA_MODEL (the GGUF file it serves)')
  const dispose = registerProvider(llamaCppFamily({ model }))
  const dsh = await bootDeployment(join(HERE, 'deployment.yml'), { env: { ...process.env, NOTES_DIR: HERE } })
  try {
    const client = new OpenAI({ baseURL: `${url.replace(/\/$/, '')}/v1`, apiKey: 'not-used-by-llama-server', maxRetries: 0 })
    const agent = await dsh.createAgent({ id: 'notes-engine', model: 'local', provider: 'llama.cpp', cwd: HERE })
    const wrong: string[] = []
    for (const [index, input] of TURNS.entries()) {
      const step = await agent.stepDetailed(input)
      const completion = await client.chat.completions.create({ ...step.request, max_tokens: 16 })
      // Tool calls are answered without running them: this mode is about the cache, not the notes.
      agent.record(completion, { format: 'openai-chat' })
      for (const call of completion.choices[0].message.tool_calls ?? []) agent.record({ role: 'tool', tool_call_id: call.id, content: 'not run in this mode' })
      const { predictedCachedTokens, reportedCachedTokens, requestTokens, mismatch } = step.report
      console.log(`request ${index + 1}: ${requestTokens} prompt tokens, predicted ${predictedCachedTokens} cached, the server reported ${reportedCachedTokens}`)
      if (reportedCachedTokens !== predictedCachedTokens) wrong.push(`request ${index + 1}: predicted ${predictedCachedTokens}, reported ${reportedCachedTokens} (${mismatch})`)
    }
    if (wrong.length) throw new Error(`predictions and the server differ:\n  ${wrong.join('\n  ')}`)
    console.log(`ok: ${TURNS.length} requests, every prediction equal to the server's figure`)
  } finally {
    await dsh.dispose()
    dispose()
  }
}

main().catch((error: unknown) => {
  console.error(`harness example (engine mode) failed: ${error instanceof Error ? error.message : String(error)}`)
  process.exitCode = 1
})
