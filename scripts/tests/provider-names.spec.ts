/**
 * Issue 19: no code compares a wire format's or a provider family's name; what differs between them is
 * a field of their module (`WireFormatModule`, `ProviderFamily`), found in the registry. This scans every
 * package's sources for a comparison with a built-in name (`=== 'anthropic'`, `case 'gemini':`, ...).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect } from 'chai'
import { PROVIDER_FAMILIES, WIRE_FORMATS } from 'dsh-wire'

const REPO = fileURLToPath(new URL('../../', import.meta.url))

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? sources(path) : /\.ts$/.test(name) ? [path] : []
  })
}

/** The lines of `text` that compare a string literal among `names` (strict or loose equality, either side, or a `case`). */
export function nameComparisons(text: string, names: readonly string[]): string[] {
  const alternatives = names.map((name) => name.replace(/[-]/g, '\\-')).join('|')
  const pattern = new RegExp(`([!=]==?\\s*['"\`](${alternatives})['"\`])|(['"\`](${alternatives})['"\`]\\s*[!=]==?)|(case\\s+['"\`](${alternatives})['"\`])`)
  return text.split('\n').filter((line) => pattern.test(line))
}

describe('no code outside a format or provider module compares its name', () => {
  const names = [...WIRE_FORMATS, ...PROVIDER_FAMILIES, 'openrouter']

  it('the scan finds such a comparison', () => {
    expect(nameComparisons("if (this.format === 'openai-chat') x()\nswitch (p) {\n  case 'deepseek':\n}\nconst a = 'gemini'", names))
      .to.deep.equal(["if (this.format === 'openai-chat') x()", "  case 'deepseek':"])
  })

  it('no package source compares a built-in format or family name', () => {
    const found: string[] = []
    for (const root of ['packages', 'plugins']) {
      for (const name of readdirSync(join(REPO, root))) {
        const src = join(REPO, root, name, 'src')
        if (!existsSync(src)) continue
        for (const file of sources(src)) for (const line of nameComparisons(readFileSync(file, 'utf8'), names)) found.push(`${relative(REPO, file)}: ${line.trim()}`)
      }
    }
    expect(found).to.deep.equal([])
  })
})
