import { expect } from 'chai'
import type { Context } from 'cordis'
import { MAX_RENDERED_CHARS, renderAssembly } from 'dsh-system-prompt'
import { bootApp, thrown } from 'dsh-testing'
import { BARE } from './helpers.js'

// Issue 20, item 8: 100,000 {{model}} references with a 6 KB model name made rendering fail with V8's
// uncoded `RangeError: Invalid string length`, naming neither the section nor the variable. A rendered
// text may hold MAX_RENDERED_CHARS characters; past it, PROMPT_TEXT_TOO_LONG says where, before the text is built.

const MODEL = 'm'.repeat(6 * 1024)

describe('dsh-system-prompt: the size of a rendered text is bounded', () => {
  let app: Context
  beforeEach(async () => {
    ({ app } = await bootApp({ systemPrompt: BARE }))
    app.systemPrompt.variable('model', () => MODEL)
  })

  it('a section whose references render past MAX_RENDERED_CHARS fails with PROMPT_TEXT_TOO_LONG naming the section and the variable', async () => {
    app.systemPrompt.section({ name: 'echo', order: 10, text: 'Model: {{model}}. '.repeat(100_000) })
    const assembly = await app.systemPrompt.assemble()
    const error = thrown(() => renderAssembly(assembly))
    expect(error).to.not.be.instanceOf(RangeError)
    expect((error as Error & { code?: string }).code).to.equal('PROMPT_TEXT_TOO_LONG')
    expect((error as Error & { details?: object }).details).to.deep.equal({
      kind: 'section', entry: 'echo', variable: 'model', references: 100_000, valueLength: 6144, limit: MAX_RENDERED_CHARS,
    })
    // A plain assembly (no render memo) takes the other path through the renderer: the same error.
    const plain = thrown(() => renderAssembly({ sections: assembly.sections, contexts: [], variables: assembly.variables }))
    expect((plain as Error & { details?: object }).details).to.deep.equal((error as Error & { details?: object }).details)
    expect(error.message).to.equal(`section "echo" renders to more than ${MAX_RENDERED_CHARS} characters at "{{model}}" (its value has 6144 characters and the text references it 100000 times), more than a rendered text may hold`)
  })

  it('sections that each fit but join past the limit fail naming the section that crosses it', async () => {
    const third = 'x'.repeat(Math.ceil(MAX_RENDERED_CHARS / 3))
    for (const name of ['a', 'b', 'c']) app.systemPrompt.section({ name, order: name.charCodeAt(0), text: third })
    const assembly = await app.systemPrompt.assemble()
    const failure = thrown(() => renderAssembly(assembly)) as Error & { code?: string; details?: { entry: string; variable: unknown } }
    expect([failure.code, failure.details?.entry, failure.details?.variable]).to.deep.equal(['PROMPT_TEXT_TOO_LONG', 'c', null])
    expect(failure.message).to.equal(`the system prompt holds more than ${MAX_RENDERED_CHARS} characters once section "c" is joined to the sections before it, more than a rendered text may hold`)
  })

  it('a section that changes after a rendering joins past the limit with the unchanged ones before it: the error names it', async () => {
    // The renderer skips the running length while the sections match its last rendering of the view,
    // and must count them once one does not: "a" and "b" are reused, "c" alone fits, all three do not.
    const third = 'x'.repeat(Math.ceil(MAX_RENDERED_CHARS / 3))
    let tail = 'short'
    app.systemPrompt.variable('tail', () => tail)
    app.systemPrompt.section({ name: 'a', order: 1, text: third })
    app.systemPrompt.section({ name: 'b', order: 2, text: third })
    app.systemPrompt.section({ name: 'c', order: 3, text: '{{tail}}' })
    expect(renderAssembly(await app.systemPrompt.assemble()).system.length).to.equal(2 * third.length + 2 + 2 + 'short'.length)
    tail = third
    const again = await app.systemPrompt.assemble()
    const failure = thrown(() => renderAssembly(again)) as Error & { code?: string; details?: { entry: string } }
    expect([failure.code, failure.details?.entry]).to.deep.equal(['PROMPT_TEXT_TOO_LONG', 'c'])
  })

  it('a runtime context that renders past the limit fails the same way, naming the context', async () => {
    app.systemPrompt.context({ name: 'env', order: 1, text: '{{model}}\n'.repeat(6000) })
    const assembly = await app.systemPrompt.assemble()
    const error = thrown(() => renderAssembly(assembly)) as Error & { code?: string; details?: { kind: string; entry: string; variable: unknown } }
    expect([error.code, error.details?.kind, error.details?.entry, error.details?.variable]).to.deep.equal(['PROMPT_TEXT_TOO_LONG', 'context', 'env', 'model'])
  })

  it('a text just under the limit renders whole', async () => {
    app.systemPrompt.section({ name: 'echo', order: 10, text: '{{model}}'.repeat(Math.floor(MAX_RENDERED_CHARS / MODEL.length)) })
    expect(renderAssembly(await app.systemPrompt.assemble()).system.length).to.equal(Math.floor(MAX_RENDERED_CHARS / MODEL.length) * MODEL.length)
  })
})
