/**
 * The re-anchor message of a `stable-opening` epoch (R-EPOCH-3): the newest system-prompt version
 * said as what changed since the kept opening, by paragraphs (texts between blank lines, as sections
 * are joined): the paragraphs both share at the start and at the end stay unsaid, the part between
 * is named by its first and last words and replaced. Used only when it is shorter than the whole
 * version (as an appended version is sent). Pure.
 * @module
 */
import { systemUpdateText } from 'dsh-wire/internal'

/** The first line of every re-anchor message: the model reads it as "the instructions above, amended". */
export const REANCHOR_MARKER = '[system prompt updated: the instructions above still hold, except as this message changes them]'

/** At most this many characters of a paragraph quote where a changed part starts or ends. */
const QUOTE = 60

function starts(paragraph: string): string {
  return JSON.stringify(paragraph.length > QUOTE ? `${paragraph.slice(0, QUOTE)}…` : paragraph)
}

function ends(paragraph: string): string {
  return JSON.stringify(paragraph.length > QUOTE ? `…${paragraph.slice(-QUOTE)}` : paragraph)
}

/**
 * The re-anchor that amends `opening` into `newest`, or `undefined` when they are the same or the
 * amendment would not be shorter than sending `newest` whole.
 */
export function reanchorText(opening: string, newest: string): string | undefined {
  if (opening === newest) return undefined
  const before = opening.split('\n\n')
  const after = newest.split('\n\n')
  let head = 0
  while (head < before.length && head < after.length && before[head] === after[head]) head++
  let tail = 0
  while (tail < before.length - head && tail < after.length - head && before[before.length - 1 - tail] === after[after.length - 1 - tail]) tail++
  const removed = before.slice(head, before.length - tail)
  const added = after.slice(head, after.length - tail)
  const part = removed.length ? `the part from ${starts(removed[0])} to ${ends(removed[removed.length - 1])}` : ''
  const where = head > 0 ? `after the part that ends ${ends(before[head - 1])}` : 'before everything else'
  const change = !removed.length ? `add the text below ${where}.`
    : !added.length ? `${part} no longer applies.`
      : `${part} is replaced by the text below.`
  const text = `${REANCHOR_MARKER}\n\nIn the instructions above, ${change}${added.length ? `\n\n${added.join('\n\n')}` : ''}`
  return text.length < systemUpdateText(newest).length ? text : undefined
}
