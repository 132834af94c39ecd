/**
 * Reading a system-prompt line's parts back (format version 2, R-LEDGER-7): each part's fields and
 * types, byte ranges that cut the version's text into its sections exactly as the render joins them
 * (one blank line between two), and each hash against the text of its range. A problem is
 * `AGENT_LEDGER_BAD_LINE` naming the line and the part. Pure and Cordis-free.
 * @module
 */
import { ledgerBadLine } from './errors.js'
import { partText, textHash, type PromptPart } from './ledger-parts.js'

const HEX = /^[0-9a-f]{64}$/

/** The checked, frozen copy of `value` (a line's `sections`) for the version text `content`, in the ledger's key order. */
export function checkSections(line: number, value: unknown, content: string): PromptPart[] {
  const problem = (text: string): never => { throw ledgerBadLine(line, `sections: ${text}`) }
  if (!Array.isArray(value)) problem('must be an array of parts ({ name, owner, layer, start, end, hash, template, variables?, tool? })')
  const parts: PromptPart[] = []
  const names = new Set<string>()
  const total = Buffer.byteLength(content, 'utf8')
  let expected = 0
  ;(value as unknown[]).forEach((item, index) => {
    const at = `part ${index + 1}`
    if (typeof item !== 'object' || item === null || Array.isArray(item)) problem(`${at} must be an object`)
    const { name, owner, layer, start, end, hash, template, variables, tool } = item as Record<string, unknown>
    if (typeof name !== 'string' || !name) problem(`${at}: "name" must be a non-empty string`)
    if (names.has(name as string)) problem(`${at}: the section "${name}" is named twice`)
    names.add(name as string)
    if (owner !== null && typeof owner !== 'string') problem(`${at} ("${name}"): "owner" must be a string or null`)
    if (typeof layer !== 'string' || !layer) problem(`${at} ("${name}"): "layer" must be a non-empty string`)
    if (start !== expected) problem(`${at} ("${name}"): "start" must be ${expected} (the byte after the previous part and the blank line that joins them), found ${JSON.stringify(start)}`)
    if (!Number.isSafeInteger(end) || (end as number) <= expected || (end as number) > total) problem(`${at} ("${name}"): "end" must be a byte offset after "start" within the version's ${total} bytes, found ${JSON.stringify(end)}`)
    for (const [key, digest] of [['hash', hash], ['template', template]] as const) {
      if (typeof digest !== 'string' || !HEX.test(digest)) problem(`${at} ("${name}"): "${key}" must be a SHA-256 in lowercase hex`)
    }
    const part: PromptPart = { name: name as string, owner: owner as string | null, layer: layer as string, start: start as number, end: end as number, hash: hash as string, template: template as string }
    if (textHash(partText(content, part)) !== hash) problem(`${at} ("${name}"): "hash" is not the SHA-256 of bytes ${start}-${end} of the version's text`)
    if (variables !== undefined) part.variables = checkVariables(variables, (text) => problem(`${at} ("${name}"): ${text}`))
    if (tool !== undefined) {
      if (typeof tool !== 'string' || !tool) problem(`${at} ("${name}"): "tool" must be the name of the tool the section is shown with when given`)
      part.tool = tool as string
    }
    parts.push(Object.freeze(part))
    expected = (end as number) + 2
  })
  if (parts.length ? expected - 2 !== total : total !== 0) problem(`the parts cover ${parts.length ? expected - 2 : 0} of the version's ${total} bytes`)
  return Object.freeze(parts) as PromptPart[]
}

function checkVariables(value: unknown, problem: (text: string) => never): Array<[string, string | null]> {
  if (!Array.isArray(value) || !value.length) problem('"variables" must be a non-empty array of [name, value hash or null] when given')
  return Object.freeze((value as unknown[]).map((pair) => {
    if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string' || !pair[0] || !(pair[1] === null || (typeof pair[1] === 'string' && HEX.test(pair[1])))) {
      problem('each of "variables" must be [name, SHA-256 of the value in lowercase hex, or null]')
    }
    return Object.freeze([pair[0], pair[1]]) as [string, string | null]
  })) as Array<[string, string | null]>
}
