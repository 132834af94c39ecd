import { entry, type ConversationEntry, type WireInput, type WireTool } from 'dsh-wire'

// Small records built entry by entry, the way dsh-agent records them (frozen entries with a source).

export const system = (content: string) => entry({ role: 'system', content }, 'system-prompt')
export const user = (content: string) => entry({ role: 'user', content }, 'user')
export const snapshot = (content: string) => entry({ role: 'user', content }, 'runtime-context')
export const reply = (content: string) => entry({ role: 'assistant', content }, 'assistant')
export const call = (id: string, name: string, args: string) =>
  entry({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name, arguments: args } }] }, 'assistant')
export const customCall = (id: string, name: string, input: string) =>
  entry({ role: 'assistant', content: null, tool_calls: [{ id, type: 'custom', custom: { name, input } }] }, 'assistant')
export const result = (id: string, content: string) => entry({ role: 'tool', tool_call_id: id, content }, 'tool')

export const READ: WireTool = { name: 'read', description: 'Read a file.', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } }

/** A conversation with a tool call and its result, and a prompt change under append after it. */
export function toolConversation(): ConversationEntry[] {
  return [
    system('Be brief.'), user('Fix the cart.'), snapshot('Open files: cart.ts'),
    call('call_1', 'read', '{"path":"cart.ts"}'), result('call_1', 'export const total = 1'),
    reply('Fixed.'), system('Be careful.'), user('Thanks.'),
  ]
}

/** The input of every format for `record`, with the read tool and breakpoints off unless given. */
export function input(record: readonly ConversationEntry[], extra: Partial<WireInput> = {}): WireInput {
  return { record, tools: [READ], model: 'm', promptChange: 'append', breakpoints: false, ...extra }
}
