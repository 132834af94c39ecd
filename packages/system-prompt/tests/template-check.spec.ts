import { expect } from 'chai'
import fc from 'fast-check'
import { interpolate, validatePromptTemplate, type TemplateProblem, type VariableTable } from 'dsh-system-prompt'

const RULE = '(variable names match /^[a-z][a-z0-9_]*$/)'
const GROUPS = '(references are complete simple {{name}} groups)'

/** `code@line:column+length` of each problem, for compact comparisons. */
const places = (problems: readonly TemplateProblem[]) => problems.map((p) => `${p.code}@${p.line}:${p.column}+${p.length}`)

/** The message interpolate() throws for `text`, or `undefined` when it renders. */
function renderError(text: string, variables: VariableTable): string | undefined {
  try {
    interpolate(text, variables, 'section', 's')
  } catch (error) {
    return (error as Error).message
  }
  return undefined
}

/** The 1-based line and column of `index`, counted the plain way. */
function lineColumn(text: string, index: number): { line: number; column: number } {
  const lines = text.slice(0, index).split('\n')
  return { line: lines.length, column: lines[lines.length - 1].length + 1 }
}

describe('dsh-system-prompt: validatePromptTemplate', () => {
  describe('accepted texts', () => {
    it('returns no problem for text without braces', () => {
      expect(validatePromptTemplate('You review changes.\nBe brief.', [])).to.deep.equal([])
    })

    it('returns no problem for references to known names', () => {
      expect(validatePromptTemplate('Model {{model}} in {{cwd}}, again {{model}}.', ['model', 'cwd'])).to.deep.equal([])
    })

    it('keeps a lone {{ with no }} after it literal', () => {
      expect(validatePromptTemplate('a {{ b {{ c', [])).to.deep.equal([])
    })

    it('accepts stray closing braces: }} and {{model}}}', () => {
      expect(validatePromptTemplate('}} {{model}}} }', ['model'])).to.deep.equal([])
    })

    it('does not look inside a raw block', () => {
      expect(validatePromptTemplate('{{#raw}}{{ x }} {{{y}}} {{unknown}}{{/raw}} {{model}}', ['model'])).to.deep.equal([])
    })
  })

  describe('each problem, with the rendering wording and its position', () => {
    it('reports an unknown name with the sorted known names', () => {
      expect(validatePromptTemplate('Hi {{modle}}.', ['model', 'cwd'])).to.deep.equal([{
        code: 'PROMPT_UNKNOWN_VARIABLE',
        message: 'unknown prompt variable "{{modle}}" at line 1, column 4; registered variables: cwd, model',
        index: 3, line: 1, column: 4, length: 9,
      }])
    })

    it('reports an unknown name with (none) when no name is known', () => {
      expect(validatePromptTemplate('{{model}}', [])[0].message)
        .to.equal('unknown prompt variable "{{model}}" at line 1, column 1; registered variables: (none)')
    })

    it('treats {{constructor}} as unknown unless it is given', () => {
      expect(places(validatePromptTemplate('{{constructor}}', ['model']))).to.deep.equal(['PROMPT_UNKNOWN_VARIABLE@1:1+15'])
      expect(validatePromptTemplate('{{constructor}}', ['constructor'])).to.deep.equal([])
    })

    it('reports a malformed complete group', () => {
      expect(validatePromptTemplate('x\n  {{ model }}', ['model'])).to.deep.equal([{
        code: 'PROMPT_MALFORMED_REFERENCE',
        message: `malformed prompt variable reference "{{ model }}" at line 2, column 3 ${RULE}`,
        index: 4, line: 2, column: 3, length: 11,
      }])
    })

    for (const group of ['{{}}', '{{Model}}', '{{a-b}}', '{{1a}}', '{{/raw}}', '{{#each}}']) {
      it(`reports ${group} as a malformed complete group`, () => {
        expect(validatePromptTemplate(group, ['model'])).to.deep.equal([{
          code: 'PROMPT_MALFORMED_REFERENCE',
          message: `malformed prompt variable reference "${group}" at line 1, column 1 ${RULE}`,
          index: 0, line: 1, column: 1, length: group.length,
        }])
      })
    }

    it('reports a {{ that opens no complete group while a }} follows, with the 16-character snippet', () => {
      expect(validatePromptTemplate('ok {{{model}}}', ['model'])).to.deep.equal([{
        code: 'PROMPT_MALFORMED_OPENING',
        message: `malformed prompt variable reference at "{{{model}}}…" at line 1, column 4 ${GROUPS}`,
        index: 3, line: 1, column: 4, length: 2,
      }])
      expect(validatePromptTemplate('{{a}b}} and then a long tail', ['a'])[0].message)
        .to.equal(`malformed prompt variable reference at "{{a}b}} and then…" at line 1, column 1 ${GROUPS}`)
    })

    it('reports an unterminated raw block at its opener', () => {
      expect(validatePromptTemplate('a\nb {{#raw}} literal {', [])).to.deep.equal([{
        code: 'PROMPT_UNTERMINATED_RAW',
        message: 'unterminated {{#raw}} block at line 2, column 3 (close it with {{/raw}})',
        index: 4, line: 2, column: 3, length: 8,
      }])
    })
  })

  describe('every problem, not just the first', () => {
    it('keeps scanning after each problem and reports them in text order', () => {
      const text = 'A {{ a }} then {{b}}\n{{{c}}} and {{d}} {{#raw}}'
      expect(places(validatePromptTemplate(text, ['d']))).to.deep.equal([
        'PROMPT_MALFORMED_REFERENCE@1:3+7', 'PROMPT_UNKNOWN_VARIABLE@1:16+5', 'PROMPT_MALFORMED_OPENING@2:1+2', 'PROMPT_UNTERMINATED_RAW@2:19+8',
      ])
    })

    it('checks the text after an unterminated raw opener as ordinary template text', () => {
      expect(places(validatePromptTemplate('{{#raw}} {{x}} {{ }}', []))).to.deep.equal([
        'PROMPT_UNTERMINATED_RAW@1:1+8', 'PROMPT_UNKNOWN_VARIABLE@1:10+5', 'PROMPT_MALFORMED_REFERENCE@1:16+5',
      ])
    })

    it('resumes after a bare {{ two characters on, like interpolate() resumes after a group', () => {
      expect(places(validatePromptTemplate('{{ {{ }}', []))).to.deep.equal(['PROMPT_MALFORMED_OPENING@1:1+2', 'PROMPT_MALFORMED_REFERENCE@1:4+5'])
      expect(places(validatePromptTemplate('{{{{a}}', ['a']))).to.deep.equal(['PROMPT_MALFORMED_OPENING@1:1+2'])
    })

    it('counts lines at \\n and columns in UTF-16 code units', () => {
      const problems = validatePromptTemplate('é😀{{x}}\r\n\n\t{{y}}', [])
      expect(places(problems)).to.deep.equal(['PROMPT_UNKNOWN_VARIABLE@1:4+5', 'PROMPT_UNKNOWN_VARIABLE@3:2+5'])
      expect(problems.map((p) => p.index)).to.deep.equal([3, 12])
    })
  })

  describe('bad input', () => {
    it('refuses a variable name that could never be referenced, with the registration wording', () => {
      expect(() => validatePromptTemplate('{{a}}', ['a', 'Model']))
        .to.throw(TypeError, 'invalid prompt variable name "Model" (must match /^[a-z][a-z0-9_]*$/)')
    })

    it('refuses a text that is not a string, naming what it received', () => {
      expect(() => validatePromptTemplate(42 as unknown as string, []))
        .to.throw(TypeError, 'validatePromptTemplate(text) needs the template text as a string, received a number (42)')
    })

    it('accepts any iterable of names, duplicates included', () => {
      expect(validatePromptTemplate('{{a}} {{b}}', new Set(['a', 'b', 'a']))).to.deep.equal([])
      expect(validatePromptTemplate('{{c}}', ['b', 'a', 'b'])[0].message).to.contain('registered variables: a, b')
    })
  })

  describe('agreement with interpolate() (property)', () => {
    const NAMES = ['a', 'b', 'ab', 'x1', 'a_b'] as const
    const table = fc.dictionary(fc.constantFrom(...NAMES), fc.string({ maxLength: 3 }))
    const char = fc.constantFrom('{', '{', '{', '}', '}', '}', 'a', 'b', 'x', 'A', '1', '_', ' ', '\n')

    /** Checks one text against one table; used by both properties below. */
    function agrees(text: string, variables: Record<string, string>): void {
      const expected = renderError(text, variables)
      const problems = validatePromptTemplate(text, Object.keys(variables))
      if (expected === undefined) {
        expect(problems, JSON.stringify(text)).to.deep.equal([])
        return
      }
      expect(problems.length, JSON.stringify(text)).to.be.greaterThan(0)
      const first = problems[0]
      // Same wording, the section name replaced by the position.
      expect(first.message).to.equal(expected.replace('in section "s"', `at line ${first.line}, column ${first.column}`))
      // Same place: the text before it renders, and the text from it fails with the same message.
      expect(renderError(text.slice(0, first.index), variables), JSON.stringify(text)).to.equal(undefined)
      expect(renderError(text.slice(first.index), variables)).to.equal(expected)
      for (const problem of problems) {
        // Every reported problem is real: rendering from its position fails with its message.
        const message = renderError(text.slice(problem.index), variables)
        expect(message, JSON.stringify(text)).to.not.equal(undefined)
        expect(problem.message).to.equal(message!.replace('in section "s"', `at line ${problem.line}, column ${problem.column}`))
        expect({ line: problem.line, column: problem.column }).to.deep.equal(lineColumn(text, problem.index))
      }
      const indices = problems.map((p) => p.index)
      expect(indices).to.deep.equal([...indices].sort((x, y) => x - y))
    }

    it('reports no problem iff interpolate() renders, and the first problem is the one it throws', () => {
      const text = fc.array(char, { maxLength: 40 }).map((chars) => chars.join(''))
      fc.assert(fc.property(text, table, agrees), { numRuns: 400 })
    })

    it('agrees on texts that also hold references and raw markers', () => {
      const token = fc.oneof(
        { weight: 4, arbitrary: char },
        { weight: 2, arbitrary: fc.constantFrom(...NAMES, 'zz').map((name) => `{{${name}}}`) },
        { weight: 1, arbitrary: fc.constantFrom('{{#raw}}', '{{/raw}}') },
      )
      const text = fc.array(token, { maxLength: 20 }).map((tokens) => tokens.join(''))
      fc.assert(fc.property(text, table, agrees), { numRuns: 300 })
    })
  })
})
