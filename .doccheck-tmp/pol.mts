import { DEFAULT_PLAN_TEXT, DEFAULT_TEAM_TEXT, sandboxText, approvalText, Config } from 'dsh-plugin-policies'
import { joinContextSections } from 'dsh-system-prompt'
const { loadTokenizer } = await import('dsh-prompt')
const tk = await loadTokenizer()
console.log(Buffer.byteLength(DEFAULT_PLAN_TEXT), tk.count(DEFAULT_PLAN_TEXT), Buffer.byteLength(DEFAULT_TEAM_TEXT), tk.count(DEFAULT_TEAM_TEXT))
const s = joinContextSections([sandboxText({ mode: 'workspace-write', writableRoots: ['/srv/app','/tmp'], network: false }), approvalText('on-request')])
console.log(Buffer.byteLength(s), tk.count(s))
try { Config({ approval: { mode: 'sometimes' } } as any) } catch (e: any) { console.log(e.message) }
