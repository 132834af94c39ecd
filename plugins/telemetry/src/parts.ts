/**
 * The prompt's parts as span events: one `dsh.prompt.part` event per rendered section and runtime
 * context, naming it, its owner (the plugin), its layer (the scope it came from, or `global`), a hash of its text and its tokens in the
 * request's tokenizer. A trace can then say which plugin's part grew or changed between two requests
 * without carrying the text itself.
 * @module
 */
import { createHash } from 'node:crypto'
import type { Attributes } from '@opentelemetry/api'
import type { ScopeKey } from 'dsh-scope'
import type { RenderedPrompt } from 'dsh-system-prompt'
import type { TokenCounter } from 'dsh-wire'
import { Dsh } from './names.js'

/** How many texts' hashes and counts are kept between steps (an unchanged part is not hashed or counted again). */
const REMEMBERED = 1024

/** A text's hash (SHA-256, the first 16 hex digits) and its tokens, for one counter. */
interface Measured {
  hash: string
  tokens: number
}

/** Hashes and counts texts, remembering the latest ones: most parts repeat from one step to the next. */
export class PartMeter {
  /** Per counter, by text: the texts are the rendered parts' own strings, whose hashes V8 keeps. */
  private readonly known = new Map<string, Map<string, Measured>>()
  private size = 0

  /** `text`'s hash and tokens in `counter`'s tokenizer. */
  measure(text: string, counter: TokenCounter): Measured {
    let texts = this.known.get(counter.name)
    if (!texts) this.known.set(counter.name, texts = new Map())
    let measured = texts.get(text)
    if (!measured) {
      measured = { hash: createHash('sha256').update(text).digest('hex').slice(0, 16), tokens: counter.count(text) }
      if (++this.size > REMEMBERED) {
        this.known.clear()
        this.known.set(counter.name, texts = new Map())
        this.size = 1
      }
      texts.set(text, measured)
    }
    return measured
  }

  /** The attributes of each part's event (`layerOf` names a part's scope), sections first, then runtime contexts, in render order. */
  events(rendered: RenderedPrompt, counter: TokenCounter, layerOf: (scope: ScopeKey | undefined) => string): Attributes[] {
    const parts = [
      ...rendered.sections.map((part) => ({ part, type: 'section' })),
      ...rendered.contexts.map((part) => ({ part, type: 'context' })),
    ]
    return parts.map(({ part, type }) => {
      const { hash, tokens } = this.measure(part.text, counter)
      const attributes: Attributes = { [Dsh.partName]: part.name, [Dsh.partType]: type, [Dsh.partHash]: hash, [Dsh.partTokens]: tokens }
      if (part.entry.owner !== undefined) attributes[Dsh.partOwner] = part.entry.owner
      attributes[Dsh.partLayer] = layerOf(part.entry.scope)
      return attributes
    })
  }
}
