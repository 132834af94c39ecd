/**
 * A spy on gpt-tokenizer's encoder for tests that count work instead of time (issue 20, item 1): the
 * longest text the encoder is handed at once while a body runs.
 * @module
 */
import { BytePairEncodingCore } from 'gpt-tokenizer/BytePairEncodingCore'
import { encoderHandedTooMuch } from './errors.js'

/**
 * Runs `body` while recording the longest text gpt-tokenizer's encoder is handed at once, and returns
 * it. A text longer than `refuseAbove` throws at once, so code that hands the encoder unbounded text
 * fails the test instead of running for minutes.
 */
export async function longestEncoded(body: () => unknown, refuseAbove: number): Promise<number> {
  const prototype = BytePairEncodingCore.prototype as unknown as { encodeNative(text: string, allowed: unknown): number[] }
  const original = prototype.encodeNative
  let longest = 0
  prototype.encodeNative = function (this: unknown, text: string, allowed: unknown) {
    longest = Math.max(longest, text.length)
    if (text.length > refuseAbove) throw encoderHandedTooMuch(text.length, refuseAbove)
    return original.call(this, text, allowed)
  }
  try {
    await body()
  } finally {
    prototype.encodeNative = original
  }
  return longest
}
