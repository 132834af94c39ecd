/**
 * Every error message of `dsh-wire`, made in one place so tests and docs quote the same strings.
 * Each error carries a stable `code` (`WIRE_*`) and the `details` it is about: code that reacts to an
 * error reads those, never the message.
 * @module
 */

/** A format name that is not one of the wire formats. */
export const unknownFormat = (format: unknown, known: readonly string[]) =>
  Object.assign(new TypeError(`unknown wire format ${JSON.stringify(format) ?? String(format)}; known formats: ${known.join(', ')}`), {
    code: 'WIRE_UNKNOWN_FORMAT' as const, details: { format, known },
  })

/** A recorded function call whose `arguments` are not a JSON object, for a format that sends them parsed. */
export const invalidToolArguments = (format: string, callId: string, problem: string) =>
  Object.assign(new TypeError(`${format}: tool call "${callId}" arguments must be a JSON object (${problem})`), {
    code: 'WIRE_INVALID_TOOL_ARGUMENTS' as const, details: { format, callId, problem },
  })

/** A recorded custom (free-form) tool call, which the format has no block for. */
export const unsupportedToolCall = (format: string, callId: string, kind: string) =>
  Object.assign(new TypeError(`${format}: tool call "${callId}" is a ${kind} tool call, which this format cannot carry`), {
    code: 'WIRE_UNSUPPORTED_TOOL_CALL' as const, details: { format, callId, kind },
  })

/** A tool result whose `tool_call_id` answers no recorded call, for a format that must name the function. */
export const unmatchedToolResult = (format: string, callId: string) =>
  Object.assign(new Error(`${format}: tool result "${callId}" answers no recorded tool call`), {
    code: 'WIRE_UNMATCHED_TOOL_RESULT' as const, details: { format, callId },
  })

/** Breakpoint options that break a provider rule; `problem` says which. */
export const invalidBreakpoints = (problem: string) =>
  Object.assign(new RangeError(`anthropic cache breakpoints: ${problem}`), {
    code: 'WIRE_INVALID_BREAKPOINTS' as const, details: { problem },
  })

/** A usage object that is not an object, or a format `normalizeUsage` does not read. */
export const invalidUsage = (format: string, problem: string) =>
  Object.assign(new TypeError(`usage for ${JSON.stringify(format)}: ${problem}`), {
    code: 'WIRE_INVALID_USAGE' as const, details: { format, problem },
  })

/** A wire format registered under a name the table already holds. */
export const duplicateFormat = (format: string) =>
  Object.assign(new Error(`wire format "${format}" is already registered`), {
    code: 'WIRE_DUPLICATE_FORMAT' as const, details: { format },
  })

/** A provider family name that is not registered. */
export const unknownProvider = (provider: unknown, known: readonly string[]) =>
  Object.assign(new TypeError(`unknown provider family ${JSON.stringify(provider) ?? String(provider)}; known families: ${known.join(', ')}`), {
    code: 'WIRE_UNKNOWN_PROVIDER' as const, details: { provider, known },
  })

/** A provider family registered under a name the table already holds. */
export const duplicateProvider = (provider: string) =>
  Object.assign(new Error(`provider family "${provider}" is already registered`), {
    code: 'WIRE_DUPLICATE_PROVIDER' as const, details: { provider },
  })

/** A self-hosted engine's family made with an option that is not a positive whole number of tokens (`vllmFamily({ blockSize })`, `sglangFamily({ pageSize })`). */
export const invalidProviderOption = (provider: string, option: string, value: unknown) =>
  Object.assign(new RangeError(`provider family "${provider}": ${option} must be a positive whole number of tokens, received ${JSON.stringify(value) ?? String(value)}`), {
    code: 'WIRE_INVALID_PROVIDER_OPTION' as const, details: { provider, option, value },
  })

/** A content part (an image, a document) that the format cannot carry in an entry of this role. */
export const unsupportedPart = (format: string, role: string, kind: string) =>
  Object.assign(new TypeError(`${format}: a ${role} entry holds a ${kind} part, which this format cannot carry there`), {
    code: 'WIRE_UNSUPPORTED_PART' as const, details: { format, role, kind },
  })

/** A provider reply (or stream event) that is not of the shape the format's reader reads; `path` names the field. */
export const invalidReply = (format: string, path: string, problem: string) =>
  Object.assign(new TypeError(`${format} reply: ${path} ${problem}`), {
    code: 'WIRE_INVALID_REPLY' as const, details: { format, path, problem },
  })

/** A reply item the record cannot keep (a server tool's call or result, for example); `path` names it. */
export const unsupportedReplyItem = (format: string, path: string, kind: string) =>
  Object.assign(new TypeError(`${format} reply: ${path} is a ${JSON.stringify(kind)} item, which the record cannot keep`), {
    code: 'WIRE_UNSUPPORTED_REPLY_ITEM' as const, details: { format, path, kind },
  })

/** Content parts given to the record that are not of a part's shape, or that disagree with `content` / `tool_calls`. */
export const invalidParts = (problem: string) =>
  Object.assign(new TypeError(`parts: ${problem}`), {
    code: 'WIRE_INVALID_PARTS' as const, details: { problem },
  })

/** A tool name the format's provider refuses; `rule` is the documented pattern, `source` where it is documented. */
export const invalidToolName = (format: string, tool: string, rule: string, source: string) =>
  Object.assign(new TypeError(`${format}: tool name ${JSON.stringify(tool)} is refused by the provider (a name must match ${rule})`), {
    code: 'WIRE_INVALID_TOOL_NAME' as const, details: { format, tool, rule, source },
  })

/** A tool's `parameters` the format's provider refuses (not a JSON Schema of an object); `problem` says why. */
export const invalidToolParameters = (format: string, tool: string, problem: string, source: string) =>
  Object.assign(new TypeError(`${format}: tool ${JSON.stringify(tool)} parameters ${problem}`), {
    code: 'WIRE_INVALID_TOOL_PARAMETERS' as const, details: { format, tool, problem, source },
  })

/** An entry whose every text is empty, for a format whose provider refuses empty text and empty messages. */
export const emptyText = (format: string, role: string) =>
  Object.assign(new TypeError(`${format}: ${/^[aeiou]/.test(role) ? 'an' : 'a'} ${role} entry with empty text cannot be sent (the provider refuses empty text blocks and messages without content)`), {
    code: 'WIRE_EMPTY_TEXT' as const, details: { format, role },
  })

/** An extra body field (`step({ fields })`) that dsh sets itself in this format: the model, the element list, the system prompt, the tools. */
export const ownedField = (format: string, field: string) =>
  Object.assign(new TypeError(`${format}: the body field "${field}" is set by dsh and cannot be given as an extra field`), {
    code: 'WIRE_OWNED_FIELD' as const, details: { format, field },
  })

/** A model file that is not a GGUF file dsh can read (bad magic, unknown version or value type, cut short); `problem` says which, `offset` where. */
export const invalidGguf = (file: string, problem: string, offset: number) =>
  Object.assign(new Error(`${file}: not a readable GGUF model file: ${problem} (at byte ${offset})`), {
    code: 'WIRE_INVALID_GGUF' as const, details: { file, problem, offset },
  })

/** A GGUF model whose vocabulary the llama.cpp family cannot tokenize exactly (not byte-level BPE), or that has no vocabulary. */
export const unsupportedVocabulary = (file: string, model: string) =>
  Object.assign(new Error(`${file}: the llama.cpp family tokenizes byte-level BPE vocabularies ("gpt2"); this model's tokenizer.ggml.model is ${JSON.stringify(model)}`), {
    code: 'WIRE_UNSUPPORTED_VOCABULARY' as const, details: { file, model },
  })
