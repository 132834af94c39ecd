/**
 * A corpus of broken deployments, generated from a seed (nothing is committed but this generator): each
 * case is one mutation of a valid deployment, with what the loader must report about it.
 */
import { random } from 'dsh-testing'
import { parseDocument } from 'yaml'

/** One broken deployment. */
export interface BrokenCase {
  label: string
  /** The file's bytes. */
  bytes: Buffer
  /** The key path a problem must name, and the line it must give, when the mutation has one. */
  key?: string
  line?: number
  /** The line a problem must give when the mutation has no key (syntax and encoding damage). */
  lineOnly?: number
}


/** The valid deployment every case starts from, as lines (`GREETER` is the fixture plugin's path). */
function baseLines(greeter: string): string[] {
  return [
    'plugins:',
    '  - name: dsh-system-prompt',
    '    id: prompt',
    '    config:',
    '      includeHarnessIdentity: false',
    '      persona: You are Dee.',
    `  - name: ${greeter}`,
    '    id: hello',
    '    config:',
    '      section: greeting',
    '      text: Hello.',
    '      order: 100',
  ]
}

/** Each key of the base, with its line (1-based) and the wrong values to put there. */
const SITES: Array<{ key: string; line: number; wrong: string[] }> = [
  { key: 'plugins', line: 1, wrong: ['42', '{ name: x }', 'true', '"plugins"'] },
  { key: 'plugins[0].name', line: 2, wrong: ['42', '[dsh-system-prompt]', '{ a: 1 }', 'true', '""'] },
  { key: 'plugins[0].id', line: 3, wrong: ['7', '[prompt]', '{ id: x }', 'false', '"  "'] },
  { key: 'plugins[0].config', line: 4, wrong: ['42', '[1, 2]', '"text"', 'true'] },
  { key: 'plugins[0].config.includeHarnessIdentity', line: 5, wrong: ['"no"', '0', '[true]', '{ a: 1 }'] },
  { key: 'plugins[0].config.persona', line: 6, wrong: ['42', '[a, b]', '{ a: 1 }', 'true'] },
  { key: 'plugins[1].name', line: 7, wrong: ['1.5', '[x]', '{ a: b }', 'null'] },
  { key: 'plugins[1].id', line: 8, wrong: ['[hello]', '{ h: 1 }', '3', 'true'] },
  { key: 'plugins[1].config', line: 9, wrong: ['[greeting]', '"greeting"', '12', 'false'] },
  { key: 'plugins[1].config.section', line: 10, wrong: ['42', '[a]', '{ s: 1 }', 'false'] },
  { key: 'plugins[1].config.text', line: 11, wrong: ['42', '[a]', '{ t: 1 }', 'true'] },
  { key: 'plugins[1].config.order', line: 12, wrong: ['"first"', '[1]', '{ o: 1 }', 'true'] },
]

/** Where an extra key can go: after `line` (1-based), indented like the keys of that mapping. */
const INSERTS: Array<{ after: number; indent: string; path: string }> = [
  { after: 12, indent: '', path: '' },
  { after: 3, indent: '    ', path: 'plugins[0].' },
  { after: 8, indent: '    ', path: 'plugins[1].' },
  { after: 6, indent: '      ', path: 'plugins[0].config.' },
  { after: 12, indent: '      ', path: 'plugins[1].config.' },
]

const SYNTAX: Array<(lines: string[], at: number) => void> = [
  (lines, at) => { lines[at] = lines[at] + ' "unclosed' },
  (lines, at) => { lines[at] = '\t' + lines[at].trimStart() },
  (lines, at) => { lines.splice(at, 0, lines[at].replace(/\S.*/, 'key: [1, 2') + '') },
  (lines, at) => { lines.splice(at + 1, 0, lines[at]) },
  (lines, at) => { lines[at] = lines[at].replace(/:/, ': :') },
  (lines, at) => { lines[at] = ' ' + lines[at] },
  (lines, at) => { lines[at] = lines[at] + ': extra: colon' },
  (lines, at) => { lines.splice(at, 0, '  {bad flow') },
  (lines, at) => { lines[at] = lines[at] + ' &anchor *alias' },
]

const pick = <T>(next: () => number, list: readonly T[]): T => list[Math.floor(next() * list.length)]

/** The corpus for `seed`: `rounds` of every mutation family, drawn at random places. */
export function brokenCorpus(seed: number, rounds: number, greeter: string): BrokenCase[] {
  const next = random(seed)
  const text = (lines: string[]) => Buffer.from(lines.join('\n') + '\n', 'utf8')
  const cases: BrokenCase[] = []
  for (let round = 0; round < rounds; round++) {
    // Wrong types at every key.
    for (const site of SITES) {
      const lines = baseLines(greeter)
      const value = pick(next, site.wrong)
      lines[site.line - 1] = lines[site.line - 1].replace(/^(\s*(?:- )?[A-Za-z]+:).*$/, `$1 ${value}`)
      // A mapping or list replaced by a scalar loses what was nested under it.
      const indent = /^\s*(?:- )?/.exec(lines[site.line - 1])![0].length
      while (lines[site.line] !== undefined && /^\s*/.exec(lines[site.line])![0].length > indent && !lines[site.line].trimStart().startsWith('- ')) lines.splice(site.line, 1)
      if (site.key === 'plugins') lines.splice(1)
      cases.push({ label: `wrong type ${value} at ${site.key}`, bytes: text(lines), key: site.key, line: site.line })
    }
    // Unknown keys, at the top, in rows and in configs.
    const insert = pick(next, INSERTS)
    const name = pick(next, ['colour', 'tolOrder', 'Plugins', 'enabled', 'x_' + Math.floor(next() * 1000)])
    const lines = baseLines(greeter)
    lines.splice(insert.after, 0, `${insert.indent}${name}: ${pick(next, ['red', '1', '[a]', '{ b: c }'])}`)
    cases.push({ label: `unknown key ${insert.path}${name}`, bytes: text(lines), key: `${insert.path}${name}`, line: insert.after + 1 })
    // Huge values of the wrong type, or naming nothing.
    const huge = baseLines(greeter)
    const size = 100_000 + Math.floor(next() * 900_000)
    const kind = round % 3
    if (kind === 0) huge[6] = `  - name: ./${'x'.repeat(size)}`
    // Lists and mappings cost the parser per item: fewer, longer items keep the size without the time
    // (and stay far below the loader's 20,000 YAML tokens: at most 900 items of 3 or 6 tokens).
    else if (kind === 1) huge[9] = `      section: [${Array.from({ length: Math.floor(size / 1000) }, (_, i) => `${i}`.padStart(998, 'a')).join(', ')}]`
    else huge[7] = `    id: { ${Array.from({ length: Math.floor(size / 1000) }, (_, i) => `k${i}: ${'v'.repeat(990)}`).join(', ')} }`
    const hugeKey = ['plugins[1].name', 'plugins[1].config.section', 'plugins[1].id'][kind]
    cases.push({ label: `huge value at ${hugeKey} (${size} units)`, bytes: text(huge), key: hugeKey, line: [7, 10, 8][kind] })
    // Deeply nested junk under a config key (an unknown key, or past what the parser can nest; from 5,000
    // levels it may also be more than the loader's 20,000 YAML tokens, refused at the same line).
    const depth = pick(next, [50, 500, 5_000, 20_000])
    const nested = baseLines(greeter)
    nested.splice(12, 0, next() < 0.5 ? `      junk: ${'['.repeat(depth)}${']'.repeat(depth)}` : `      junk: ${'{a: '.repeat(depth)}1${'}'.repeat(depth)}`)
    cases.push(depth <= 500
      ? { label: `nested junk depth ${depth}`, bytes: text(nested), key: 'plugins[1].config.junk', line: 13 }
      : { label: `nested junk depth ${depth}`, bytes: text(nested), lineOnly: 13 })
    // Syntax errors. Some damage still parses (` "unclosed` after a plain value is more plain text):
    // draw again until the YAML parser refuses the file, so every case here is a real syntax error.
    let broken: string[]
    let at: number
    do {
      broken = baseLines(greeter)
      at = 1 + Math.floor(next() * (broken.length - 1))
      pick(next, SYNTAX)(broken, at)
    } while (!parseDocument(broken.join('\n') + '\n').errors.length)
    cases.push({ label: `syntax damage at line ${at + 1}: ${JSON.stringify(broken[at]).slice(0, 60)}`, bytes: text(broken) })
    // Bytes that are not UTF-8, in a value, a key or a comment.
    const encoded = baseLines(greeter)
    const line = Math.floor(next() * encoded.length)
    if (next() < 0.3) encoded.splice(line, 0, '# a comment')
    const bad = pick(next, [[0xff], [0xc3, 0x28], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xc0, 0xaf], [0x80]])
    const before = Buffer.from(encoded.slice(0, line + 1).join('\n'), 'utf8')
    const after = Buffer.from('\n' + encoded.slice(line + 1).join('\n') + '\n', 'utf8')
    cases.push({ label: `non-UTF-8 bytes ${bad.map((b) => b.toString(16)).join(' ')} on line ${line + 1}`, bytes: Buffer.concat([before, Buffer.from(bad), after]), lineOnly: line + 1 })
  }
  // Whole-file damage.
  cases.push({ label: 'empty file', bytes: Buffer.alloc(0) })
  cases.push({ label: 'only comments', bytes: Buffer.from('# nothing here\n') })
  cases.push({ label: 'a top-level list', bytes: Buffer.from('- name: dsh-system-prompt\n'), lineOnly: 1 })
  cases.push({ label: 'a top-level scalar', bytes: Buffer.from('plugins\n'), lineOnly: 1 })
  cases.push({ label: 'no plugins key', bytes: Buffer.from('agents: []\n'), key: 'agents', line: 1 })
  return cases
}
