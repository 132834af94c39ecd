/**
 * The chat template dsh ships for llama.cpp (written into the test tier's generated model,
 * `tokenizer.chat_template`), and its rendering in TypeScript, byte for byte as llama.cpp's Jinja
 * engine renders it: the tools, one JSON object a line (Jinja's `tojson`: `", "` and `": "`
 * separators), then each message as `<|im_start|>role`, a newline, its text, its tool calls as
 * `<tool_call>{"name": ..., "arguments": ...}</tool_call>` (the arguments as `tojson` prints the parsed
 * object), and `<|im_end|>`, then the assistant's
 * opening. Tool definitions are part of the prefix, as with a hosted provider. No literal newline
 * follows a block tag, so the engine's block trimming cannot change the text.
 * @module
 */

/** The template (Jinja). */
export const DSH_CHAT_TEMPLATE =
  '{% if tools %}<|im_start|>tools\n{% for tool in tools %}{{ tool | tojson }}\n{% endfor %}<|im_end|>\n{% endif %}' +
  '{% for message in messages %}<|im_start|>{{ message.role }}\n' +
  '{% if message.content is string %}{{ message.content }}{% else %}{% for part in message.content %}{{ part.text }}{% endfor %}{% endif %}' +
  '{% if message.tool_calls %}{% for call in message.tool_calls %}<tool_call>{"name": "{{ call.function.name }}", "arguments": ' +
  '{{ call.function.arguments | tojson }}}</tool_call>{% endfor %}{% endif %}' +
  '<|im_end|>\n{% endfor %}' +
  '{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}'

/** A message as the server hands it to the template (`common_chat_msg` as OpenAI JSON). */
export interface TemplateMessage {
  role: string
  /** A string, or text parts (printed one after the other: the server passes parts through for this template). */
  content: string | readonly { text: string }[]
  tool_calls?: readonly { name: string; arguments: string }[]
}

/** A tool as the server hands it to the template. */
export interface TemplateTool {
  name: string
  description: string
  parameters: unknown
}

/** The prompt text the server renders from `messages` and `tools`, with the assistant's opening. */
export function renderDshTemplate(messages: readonly TemplateMessage[], tools: readonly TemplateTool[]): string {
  let out = ''
  if (tools.length > 0) {
    out += '<|im_start|>tools\n'
    for (const tool of tools) out += `${jinjaJson({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } })}\n`
    out += '<|im_end|>\n'
  }
  for (const message of messages) {
    out += `<|im_start|>${message.role}\n`
    // The server's capability probe sees the template loop over parts as well as print a string, so it
    // hands parts over as they are, and the template prints them one after the other.
    out += typeof message.content === 'string' ? message.content : message.content.map((part) => part.text).join('')
    for (const call of message.tool_calls ?? []) out += `<tool_call>{"name": "${call.name}", "arguments": ${jinjaJson(parsedArguments(call.arguments))}}</tool_call>`
    out += '<|im_end|>\n'
  }
  return `${out}<|im_start|>assistant\n`
}

/**
 * The arguments as the template sees them: the template reads into them (`tojson`), so the server's
 * capability probe finds it takes object arguments and parses each call's JSON string before rendering.
 * A string that is not JSON is refused by the server; here it stays a string.
 */
function parsedArguments(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/**
 * JSON as llama.cpp's Jinja `tojson` writes it without arguments: `", "` between items, `": "` after
 * keys, strings escaped as `JSON.stringify` does, integers in full, other numbers in C++'s default
 * stream format (six significant digits).
 */
export function jinjaJson(value: unknown): string {
  if (value === null || value === undefined) return 'null'
  if (typeof value === 'boolean') return value ? 'true' : 'false'
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : cppDefaultFloat(value)
  if (typeof value === 'string') return JSON.stringify(value)
  if (Array.isArray(value)) return `[${value.map(jinjaJson).join(', ')}]`
  if (typeof value === 'object') return `{${Object.entries(value).map(([key, item]) => `${JSON.stringify(key)}: ${jinjaJson(item)}`).join(', ')}}`
  return 'null'
}

/** A number as `std::ostream << double` writes it by default (`%g`, six significant digits). */
function cppDefaultFloat(value: number): string {
  if (!Number.isFinite(value)) return Number.isNaN(value) ? 'nan' : value > 0 ? 'inf' : '-inf'
  const exponent = Math.floor(Math.log10(Math.abs(value)))
  if (exponent < -4 || exponent >= 6) {
    const [mantissa, power] = value.toExponential(5).split('e')
    const trimmed = mantissa.includes('.') ? mantissa.replace(/0+$/, '').replace(/\.$/, '') : mantissa
    const sign = power.startsWith('-') ? '-' : '+'
    const digits = power.replace(/^[-+]/, '').padStart(2, '0')
    return `${trimmed}e${sign}${digits}`
  }
  const fixed = value.toFixed(Math.max(0, 5 - exponent))
  return fixed.includes('.') ? fixed.replace(/0+$/, '').replace(/\.$/, '') : fixed
}
