/**
 * `gemini` replies: `candidates[0].content.parts` read into the record in order (a `thought: true`
 * part kept as Gemini's reasoning state, `text` as text, `functionCall` as a tool call, `inlineData`
 * images as images; each part's `thoughtSignature` kept on the part it came with), and a
 * `generateContentStream` (each chunk a GenerateContentResponse with the next parts) put back together
 * as the one response: text pieces of the same kind join into one part until a signature closes it,
 * a signature that comes alone on an empty text piece joins the part before it. A function call without
 * an `id` gets `gemini-<turn>-<n>`, so the record (and a ledger of it) names it the same every time.
 * Pure and Cordis-free.
 * @module
 */
import { invalidReply, unsupportedReplyItem } from '../errors.js'
import { normalizeUsage } from '../providers/registry.js'
import { arrayAt, objectAt, replyMessage, stringAt, type ReadReply, type ReadReplyOptions, type ReplyAccumulator, type ReplyPiece } from './reply.js'

const FORMAT = 'gemini'

/** The fields of a GenerateContentResponse the reader reads (`GenerateContentResponse` of `@google/genai` has them). */
export interface GeminiReply {
  candidates?: { content?: { role?: string; parts?: object[] }; finishReason?: string; index?: number }[]
  usageMetadata?: object
  modelVersion?: string
  responseId?: string
}

/** The id a function call without one gets: the reply's turn and the call's position among its calls. */
export function geminiCallId(turn: number, n: number): string {
  return `gemini-${turn}-${n}`
}

/** The record's reply for a GenerateContentResponse (its first candidate). */
export function readGeminiReply(reply: unknown, options: ReadReplyOptions = {}): ReadReply {
  const root = objectAt(FORMAT, reply, 'reply')
  const candidate = arrayAt(FORMAT, root.candidates, 'candidates')[0]
  if (candidate === undefined) throw invalidReply(FORMAT, 'candidates', 'is empty (see promptFeedback for why the prompt was blocked)')
  const content = objectAt(FORMAT, objectAt(FORMAT, candidate, 'candidates[0]').content ?? { parts: [] }, 'candidates[0].content')
  let calls = 0
  const pieces = arrayAt(FORMAT, content.parts ?? [], 'candidates[0].content.parts').map((value, i): ReplyPiece => {
    const path = `candidates[0].content.parts[${i}]`
    const part = objectAt(FORMAT, value, path)
    const signature = part.thoughtSignature === undefined ? {} : { thoughtSignature: stringAt(FORMAT, part.thoughtSignature, `${path}.thoughtSignature`) }
    if (part.thought === true) return { type: 'reasoning', format: FORMAT, item: { text: stringAt(FORMAT, part.text ?? '', `${path}.text`), thought: true, ...signature } }
    if (part.functionCall !== undefined) {
      const call = objectAt(FORMAT, part.functionCall, `${path}.functionCall`)
      const id = call.id === undefined || call.id === null || call.id === '' ? geminiCallId(options.turn ?? 0, calls) : stringAt(FORMAT, call.id, `${path}.functionCall.id`)
      calls++
      const args = call.args === undefined || call.args === null ? {} : objectAt(FORMAT, call.args, `${path}.functionCall.args`)
      return { type: 'tool_call', call: { id, type: 'function', function: { name: stringAt(FORMAT, call.name, `${path}.functionCall.name`), arguments: JSON.stringify(args) } }, ...signature }
    }
    if (part.inlineData !== undefined) {
      const data = objectAt(FORMAT, part.inlineData, `${path}.inlineData`)
      const mediaType = stringAt(FORMAT, data.mimeType, `${path}.inlineData.mimeType`)
      if (!mediaType.startsWith('image/')) throw unsupportedReplyItem(FORMAT, `${path}.inlineData`, mediaType)
      return { type: 'image', mediaType, data: stringAt(FORMAT, data.data, `${path}.inlineData.data`) }
    }
    if (part.text !== undefined) return { type: 'text', text: stringAt(FORMAT, part.text, `${path}.text`), ...signature }
    throw unsupportedReplyItem(FORMAT, path, Object.keys(part).filter((key) => key !== 'thoughtSignature').join('+') || 'empty')
  })
  const read: ReadReply = { message: replyMessage(pieces) }
  if (root.usageMetadata !== undefined && root.usageMetadata !== null) read.usage = normalizeUsage(options.usage ?? FORMAT, root.usageMetadata)
  return read
}

/** Puts `generateContentStream` chunks back together as one GenerateContentResponse (its first candidate). */
export function geminiReplyAccumulator(): ReplyAccumulator<GeminiReply> {
  const parts: Record<string, unknown>[] = []
  let last: Record<string, unknown> = {}
  let usage: object | undefined
  let finishReason: string | undefined
  return {
    push(event) {
      const chunk = objectAt(FORMAT, event, 'chunk')
      last = chunk
      if (chunk.usageMetadata !== undefined && chunk.usageMetadata !== null) usage = objectAt(FORMAT, chunk.usageMetadata, 'chunk.usageMetadata')
      const candidate = chunk.candidates === undefined ? undefined : arrayAt(FORMAT, chunk.candidates, 'chunk.candidates')[0]
      if (candidate === undefined) return
      const { content, finishReason: finish } = objectAt(FORMAT, candidate, 'chunk.candidates[0]')
      if (typeof finish === 'string') finishReason = finish
      if (content === undefined) return
      for (const [i, value] of arrayAt(FORMAT, objectAt(FORMAT, content, 'chunk.candidates[0].content').parts ?? [], 'chunk.candidates[0].content.parts').entries()) {
        const part = { ...objectAt(FORMAT, value, `chunk.candidates[0].content.parts[${i}]`) }
        const before = parts[parts.length - 1]
        const isText = (item: Record<string, unknown>) => typeof item.text === 'string' && Object.keys(item).every((key) => key === 'text' || key === 'thought' || key === 'thoughtSignature')
        if (before && isText(part) && isText(before) && before.thoughtSignature === undefined && (before.thought === true) === (part.thought === true)) {
          before.text = (before.text as string) + (part.text as string)
          if (part.thoughtSignature !== undefined) before.thoughtSignature = part.thoughtSignature
        } else {
          parts.push(part)
        }
      }
    },
    result() {
      const candidate: NonNullable<GeminiReply['candidates']>[number] = { content: { role: 'model', parts: parts.map((part) => ({ ...part })) } }
      if (finishReason !== undefined) candidate.finishReason = finishReason
      const reply: GeminiReply = { candidates: [candidate] }
      if (usage !== undefined) reply.usageMetadata = usage
      if (typeof last.modelVersion === 'string') reply.modelVersion = last.modelVersion
      if (typeof last.responseId === 'string') reply.responseId = last.responseId
      return reply
    },
  }
}
