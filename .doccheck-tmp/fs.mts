import { FILE_TOOLS, fileToolDefinitions, DEFAULT_FILE_LIMITS } from 'dsh-plugin-filesystem'
let total = 0
for (const [n, s] of Object.entries(FILE_TOOLS)) { const b = Buffer.byteLength(s.guidance(DEFAULT_FILE_LIMITS)); total += b; console.log(n, b) }
console.log('total', total)
const defs = fileToolDefinitions({ tools: ['read','write','edit','glob','grep'], includeGuidance: false, overrides: {}, readLineLimit: 2000 })
const req = defs.map(d => ({ type: 'function', function: { name: d.name, description: d.description, parameters: d.parameters } }))
console.log('json', Buffer.byteLength(JSON.stringify(req)))
const { loadTokenizer } = await import('dsh-prompt')
const tk = await loadTokenizer()
console.log('guid tokens', tk.count(Object.values(FILE_TOOLS).map(s => s.guidance(DEFAULT_FILE_LIMITS)).join('\n\n')), 'schema tokens', tk.count(JSON.stringify(req)))
