/**
 * A wire format written in test code alone, through dsh-wire's public face: "lines", a body of
 * `{ model, prompt?, tools?, lines }` where each sent entry is one `{ speaker, text }` line. It proves
 * that a format is one module and one registry line (`registerWireFormat(linesFormat)`), with no
 * edit to dsh-wire or dsh-agent.
 */
import { namedToolParts, objectSchemaRule, streamPart, type ConversationEntry, type WireFormatModule, type WireInput } from 'dsh-wire'

/** One line of the conversation. */
export interface Line { speaker: string; text: string }

/** A "lines" request body. */
export interface LinesRequest {
  model: string
  prompt?: string
  tools?: { name: string; schema: string }[]
  lines: Line[]
}

declare module 'dsh-wire' {
  interface RequestBodies { lines: LinesRequest }
}

function line(item: ConversationEntry): Line {
  if (item.role === 'tool') return { speaker: `tool ${item.tool_call_id}`, text: item.content }
  if (item.role === 'assistant') {
    const calls = (item.tool_calls ?? []).map((call) => (call.type === 'function' ? `${call.function.name}(${call.function.arguments})` : call.custom.name))
    return { speaker: 'model', text: [item.content ?? '', ...calls].filter(Boolean).join(' ') }
  }
  return { speaker: item.source, text: item.content }
}

export const linesFormat: WireFormatModule<LinesRequest> & { readonly name: 'lines' } = {
  name: 'lines',
  provider: 'echo',
  // Any name a line can hold; parameters as every built-in format takes them.
  toolRules: { name: { pattern: /^[^\n]+$/, source: 'this test format' }, parameters: objectSchemaRule('this test format') },
  elementsKey: 'lines',
  openingIsElement: false,
  order: ['system', 'tools', 'messages'],
  lower: (item: ConversationEntry) => [line(item)],
  body: (input: WireInput, opening: ConversationEntry | undefined, elements: object[]): LinesRequest => {
    const body: LinesRequest = { model: input.model, lines: elements as Line[] }
    if (opening !== undefined) body.prompt = opening.content as string
    if (input.tools.length) body.tools = input.tools.map((tool) => ({ name: tool.name, schema: JSON.stringify(tool.parameters ?? {}) }))
    return body
  },
  blocks: () => 1,
  systemParts: (body: LinesRequest) => (body.prompt === undefined ? [] : [streamPart('system', 0, { prompt: body.prompt })]),
  toolParts: (body: LinesRequest) => namedToolParts(body.tools ?? [], (tool) => tool.name),
}
