/**
 * `docs/configuration.md` checked against the schemastery schema of the `systemPrompt` service
 * (`SystemPrompt.Config`), as STYLE.md asks of the configuration reference: every key with its type and
 * default, and no key the schema lacks.
 */
import { readFileSync } from 'node:fs'
import { expect } from 'chai'
import { SystemPrompt } from 'dsh-system-prompt'

const DOC_PATH = 'docs/configuration.md'
const DOC = readFileSync(new URL(`../../../${DOC_PATH}`, import.meta.url), 'utf8')

/** The parts of a schemastery node this test reads. */
interface SchemaNode {
  type: string
  inner?: SchemaNode
  dict?: Record<string, SchemaNode>
  (value?: unknown): unknown
}

const schema = SystemPrompt.Config as unknown as SchemaNode
const SCHEMA_KEYS = Object.keys(schema.dict ?? {})

/** One row of the doc's key table. */
interface KeyRow {
  key: string
  type: string
  default: string
}

/** The rows of the table under `## Keys`: `| \`key\` | type | default | meaning |`. */
function keyTable(doc: string): KeyRow[] {
  const section = doc.split(/^## /m).find((part) => part.startsWith('Keys\n'))
  if (!section) throw new Error(`${DOC_PATH} has no "## Keys" section`)
  const rows: KeyRow[] = []
  for (const line of section.split('\n')) {
    // Only table rows count; the header and the |---| divider are not keys.
    if (!line.startsWith('|') || /^\|[-|: ]+\|$/.test(line)) continue
    const cells = line.slice(1, -1).split(' | ').map((cell) => cell.trim())
    if (cells[0] === 'key') continue
    const key = /^`([^`]+)`$/.exec(cells[0])?.[1]
    if (!key) throw new Error(`${DOC_PATH}: a key table row without a \`key\`: ${line}`)
    rows.push({ key, type: cells[1], default: cells[2] })
  }
  return rows
}

/** How the doc writes a default: the value in backticks (`''` for the empty string), or `absent`. */
function documentedDefault(value: unknown): string {
  if (value === undefined) return 'absent'
  if (value === '') return "`''`"
  return typeof value === 'string' ? `\`${value}\`` : `\`${JSON.stringify(value)}\``
}

/** How the doc writes the type a schema node checks (through transforms, which keep the input type). */
function documentedType(node: SchemaNode): string {
  if (node.type === 'transform' && node.inner) return documentedType(node.inner)
  if (node.type === 'array' && node.inner) return `list of ${documentedType(node.inner)}s`
  return node.type
}

describe('docs/configuration.md against the systemPrompt schema', () => {
  const rows = keyTable(DOC)

  it('lists every key of the schema in its key table, once each, and no other key', () => {
    expect(SCHEMA_KEYS).to.not.be.empty
    expect(rows.map((row) => row.key)).to.deep.equal(SCHEMA_KEYS)
  })

  it('gives every key the default the schema fills in for an empty config', () => {
    const defaults = schema({}) as Record<string, unknown>
    for (const row of rows) expect(row.default, row.key).to.equal(documentedDefault(defaults[row.key]))
  })

  it('gives every key the type the schema checks', () => {
    for (const row of rows) expect(row.type, row.key).to.equal(documentedType(schema.dict![row.key]))
  })

  it('names only schema keys in its example config and its per-key headings', () => {
    const example = /```yaml\n([\s\S]*?)```/.exec(DOC)?.[1] ?? ''
    const configKeys = [...example.matchAll(/^ {6}([A-Za-z_]\w*):/gm)].map((match) => match[1])
    expect(configKeys, 'the example config').to.not.be.empty
    const headings = DOC.split('\n').filter((line) => line.startsWith('### '))
    const headingKeys = headings.flatMap((line) => [...line.matchAll(/`([^`]+)`/g)].map((match) => match[1]))
    expect(headingKeys, 'the per-key headings').to.not.be.empty
    for (const key of [...configKeys, ...headingKeys]) expect(SCHEMA_KEYS, `${DOC_PATH} names "${key}"`).to.include(key)
    // The example is a valid config of the service.
    expect(() => schema(Object.fromEntries(configKeys.map((key) => [key, exampleValue(example, key)])))).to.not.throw()
  })

  it('quotes the loader\'s unknown-key message with exactly the schema\'s keys', () => {
    const lists = [...DOC.matchAll(/\(allowed: ([^)]*)\)/g)].map((match) => match[1].split(', '))
    expect(lists, 'an "(allowed: …)" list').to.not.be.empty
    for (const list of lists) expect(list).to.deep.equal([...SCHEMA_KEYS].sort())
  })
})

/** The value of `key` in the example, as YAML would read this simple form (a flow list or a plain string). */
function exampleValue(example: string, key: string): unknown {
  const text = new RegExp(`^ {6}${key}: (.*)$`, 'm').exec(example)![1].trim()
  if (text.startsWith('[') && text.endsWith(']')) return text.slice(1, -1).split(',').map((item) => item.trim())
  if (text === 'true' || text === 'false') return text === 'true'
  return text
}
