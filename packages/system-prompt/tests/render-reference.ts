/**
 * A reference model of strict rendering (R-RENDER and the `{{#raw}}…{{/raw}}` escape), written from the
 * specification alone for `render.property.spec.ts` and the determinism model of dsh-tools: it shares no
 * code with `src/` and works differently (a sticky regular expression at each `{{` instead of index
 * searches), so agreeing with it means agreeing with the rules, not with ourselves.
 */

/** What rendering one text gives: the text, or the error (type name and message) it must fail with. */
export type Outcome = { ok: true; text: string } | { ok: false; name: string; message: string }

const NAME_RULE = '/^[a-z][a-z0-9_]*$/'
const NAME = /^[a-z][a-z0-9_]*$/
// At a `{{`: a complete group is `{{` + anything without a brace + `}}`.
const GROUP = /\{\{([^{}]*)\}\}/y

function fail(message: string): Outcome {
  return { ok: false, name: 'PromptError', message }
}

/** Code-unit order, spelled out (the tie-break of R-ORDER-1 and the order of "registered variables"). */
export function codeUnitOrder(a: string, b: string): number {
  const length = Math.min(a.length, b.length)
  for (let i = 0; i < length; i++) {
    const d = a.charCodeAt(i) - b.charCodeAt(i)
    if (d) return d
  }
  return a.length - b.length
}

/** Renders `text` of `kind` `owner` against `variables` (own properties only), per R-RENDER. */
export function referenceInterpolate(
  text: string, variables: Readonly<Record<string, string | undefined>>, kind: 'section' | 'context', owner: string,
): Outcome {
  const where = `${kind} ${JSON.stringify(owner)}`
  const own = new Map<string, string | undefined>()
  for (const key of Object.keys(variables)) own.set(key, variables[key])
  let out = ''
  let i = 0
  while (i < text.length) {
    if (text[i] !== '{' || text[i + 1] !== '{') {
      out += text[i++]
      continue
    }
    GROUP.lastIndex = i
    const group = GROUP.exec(text)
    if (!group) {
      // No complete group opens here: an error if a `}}` still follows, else the rest is literal.
      if (text.includes('}}', i + 2)) {
        return fail(`malformed prompt variable reference at ${JSON.stringify(text.slice(i, i + 16) + '…')} in ${where} (references are complete simple {{name}} groups)`)
      }
      return { ok: true, text: out + text.slice(i) }
    }
    const inner = group[1]
    i += group[0].length
    if (inner === '#raw') {
      const end = text.indexOf('{{/raw}}', i)
      if (end === -1) return fail(`unterminated {{#raw}} block in ${where} (close it with {{/raw}})`)
      out += text.slice(i, end)
      i = end + '{{/raw}}'.length
    } else if (!NAME.test(inner)) {
      return fail(`malformed prompt variable reference "{{${inner}}}" in ${where} (variable names match ${NAME_RULE})`)
    } else if (!own.has(inner)) {
      const names = [...own.keys()].sort(codeUnitOrder)
      return fail(`unknown prompt variable "{{${inner}}}" in ${where}; registered variables: ${names.length ? names.join(', ') : '(none)'}`)
    } else if (own.get(inner) === undefined) {
      return fail(`prompt variable "{{${inner}}}" has no value for this assembly (${where})`)
    } else {
      out += own.get(inner)
    }
  }
  return { ok: true, text: out }
}

/** One section or context as the reference renderer needs it. */
export interface ReferenceText {
  name: string
  text: string
  interpolate?: boolean
  /** Sections only: the ordering band. */
  band?: 'first' | 'last'
}

/** The first line of a runtime-context snapshot (R-RC-1). */
export const HEADING = 'Current runtime context. This snapshot supersedes earlier runtime-context snapshots.'

/**
 * The system prompt of `sections` (in the order given): each interpolated unless `interpolate: false`,
 * empty ones dropped, the `first` band before and the `last` band after the rest (each in the order
 * given), joined by one blank line; the first failure wins.
 */
export function referencePrompt(sections: readonly ReferenceText[], variables: Readonly<Record<string, string | undefined>>): Outcome {
  const bands: Record<'first' | 'none' | 'last', string[]> = { first: [], none: [], last: [] }
  for (const section of sections) {
    const rendered = section.interpolate === false ? { ok: true as const, text: section.text } : referenceInterpolate(section.text, variables, 'section', section.name)
    if (!rendered.ok) return rendered
    if (rendered.text) bands[section.band ?? 'none'].push(rendered.text)
  }
  return { ok: true, text: [...bands.first, ...bands.none, ...bands.last].join('\n\n') }
}

/** The runtime-context snapshot of `contexts`: the heading, a blank line, the non-empty texts; `''` if none. */
export function referenceSnapshot(contexts: readonly ReferenceText[], variables: Readonly<Record<string, string | undefined>>): Outcome {
  const parts: string[] = []
  for (const context of contexts) {
    const rendered = context.interpolate === false ? { ok: true as const, text: context.text } : referenceInterpolate(context.text, variables, 'context', context.name)
    if (!rendered.ok) return rendered
    if (rendered.text) parts.push(rendered.text)
  }
  return { ok: true, text: parts.length ? `${HEADING}\n\n${parts.join('\n\n')}` : '' }
}

/** Runs `render` and describes what happened the way {@link Outcome} does. Any non-Error throw is returned as such. */
export function outcomeOf(render: () => string): Outcome {
  try {
    return { ok: true, text: render() }
  } catch (error) {
    if (!(error instanceof Error)) return { ok: false, name: `non-Error ${typeof error}`, message: String(error) }
    return { ok: false, name: error.constructor.name, message: error.message }
  }
}

