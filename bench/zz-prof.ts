import { generate } from './workload.js'
import { measureLongConversation } from './long-conversation.js'
const r = await measureLongConversation(generate(), 'openai-chat', 2, 100, 1000)
console.log(r.short.median.toFixed(1), r.long.median.toFixed(1), r.ratio.toFixed(2))
