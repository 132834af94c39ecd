import { generate } from './workload.js'
import { measureLongConversation } from './long-conversation.js'
const workload = generate()
for (const format of ['openai-chat', 'openai-responses', 'anthropic', 'gemini'] as const) {
  const t = Date.now()
  const r = await measureLongConversation(workload, format, 5)
  console.log(format, r.short.median.toFixed(1), 'us', r.long.median.toFixed(1), 'us', r.ratio.toFixed(2) + 'x', ((Date.now() - t) / 1000).toFixed(1) + 's')
}
