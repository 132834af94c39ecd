import { bashTool, DEFAULT_LIMITS, bashGuidance, Config } from 'dsh-plugin-shell'
const t = bashTool({ ...DEFAULT_LIMITS, includeGuidance: true } as any)
const req = { type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }
const { loadTokenizer } = await import('dsh-prompt')
const tk = await loadTokenizer()
console.log('guidance', Buffer.byteLength(bashGuidance(DEFAULT_LIMITS)), tk.count(bashGuidance(DEFAULT_LIMITS)))
console.log('schema', Buffer.byteLength(JSON.stringify([req])), Buffer.byteLength(JSON.stringify(req)), tk.count(JSON.stringify([req])))
try { Config({ maxOutputBytes: 'lots' }) } catch (e: any) { console.log(e.message) }
try { Config({ tools: 'read' } as any) } catch (e: any) { console.log(e.message) }
const F = (await import('dsh-plugin-filesystem')).Config
try { F({ tools: 'read' } as any) } catch (e: any) { console.log(e.message) }
