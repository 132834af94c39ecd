/**
 * The diagnostics bridge (issue 23, item 2), on for an agent with `wire: { diagnostics: true }`: each
 * request of a format whose provider compares requests (`WireFormatModule.diagnosticsFields`) names the
 * previous reply of that format (its id, kept on the reply's entry and in the ledger), and the reply's
 * diagnosis is joined with dsh's own break in the request's report (`report.providerMiss`). A provider
 * that puts the comparison behind a header (Anthropic's beta) has it on the step result, `headers` (read
 * from the body by dsh-wire's `requestHeaders`), for the harness to send with the request.
 * @module
 */
import { wireFormat, type WireFormat } from 'dsh-wire'
import type { ConversationEntry } from './conversation.js'

/** The id of the latest reply of `format` in `record`, if any. */
export function previousReplyId(record: readonly ConversationEntry[], format: WireFormat): string | undefined {
  for (let i = record.length - 1; i >= 0; i--) {
    const reply = record[i].reply
    if (reply !== undefined && reply.format === format) return reply.id
  }
  return undefined
}

/** The body fields that ask `format`'s provider to compare this request with the previous reply's, or `undefined` (no such field). */
export function diagnosticsFields(record: readonly ConversationEntry[], format: WireFormat): Record<string, unknown> | undefined {
  return wireFormat(format).diagnosticsFields?.(previousReplyId(record, format))
}
