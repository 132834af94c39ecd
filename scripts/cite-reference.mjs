#!/usr/bin/env node
// Rewrites citations of the specification the project started from ("SPEC §9", "`SPEC.md` §4–§9",
// "SPEC §6 and §10") into rule ids of the reference in the repository (docs/reference/): plain ids in
// code (`R-RENDER-4`), links in Markdown (`[R-RENDER-4](../docs/reference/rendering.md)`). Mechanical and
// idempotent: run it again after merging a branch that still cites the old sections
// (`node scripts/cite-reference.mjs`; `--check` lists what it would change and exits 1 if anything).
// The table below is the whole mapping: a section's rule is picked by words on the citing line, then
// by the citing file's path, else the section's page. `scripts/tests/reference.spec.ts` fails while
// any citation of the old sections is left.
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const REPO = fileURLToPath(new URL('..', import.meta.url))
const SELF = 'scripts/cite-reference.mjs'

/** The page of each rule prefix. */
const PAGES = {
  'R-VOCAB': 'vocabulary.md', 'R-SCOPE': 'scopes.md', 'R-SP': 'system-prompt.md', 'R-ORDER': 'order.md',
  'R-WF': 'waterfall.md', 'R-RC': 'runtime-context.md', 'R-RENDER': 'rendering.md', 'R-TOOL': 'tools.md',
  'R-CONV': 'conversation.md', 'R-WIRE': 'wire.md', 'R-CACHE': 'caching.md', 'R-LEDGER': 'ledger.md',
  'R-DEPLOY': 'deployment.md', 'R-CLI': 'cli.md', 'R-ERR': 'errors.md',
}

/**
 * Old section → rules: `[test, rule]` pairs tried in order against the citing line (a RegExp) or the
 * citing file's path (a function); the last entry of each list is the default.
 */
const path = (re) => (_line, file) => re.test(file)
const line = (re) => (text) => re.test(text)
const SECTIONS = {
  '1': [[null, 'R-VOCAB']],
  '2': [[null, 'R-VOCAB-9']],
  '3': [[line(/export|declaration merging|lists/i), 'R-SP-6'], [null, 'R-SP-2']],
  '3.1': [[line(/suffix/i), 'R-ORDER-4'], [line(/toolOrder/), 'R-SP-9'], [null, 'R-SP-7']],
  '4': [[line(/already registered|scope's layer|global layer|second registration/i), 'R-SCOPE-12'], [line(/complete/i), 'R-WF-6'],
    [line(/finite/i), 'R-ORDER-2'], [null, 'R-ORDER-1']],
  '5': [[line(/order-less|additions|re-sort/i), 'R-WF-3'], [line(/tool schemas?|copies|frozen/i), 'R-WF-5'],
    [line(/published|unchanged|compat/i), 'R-WF-4'], [line(/authoritative|listener's result/i), 'R-WF-2'], [null, 'R-WF']],
  '6': [[line(/empt|none/i), 'R-RC-3'], [null, 'R-RC-1']],
  '7': [[line(/loaded|after load|once the deployment|finished loading|has finished|warning/i), 'R-TOOL-4'], [path(/loader/), 'R-TOOL-4'],
    [line(/reserved/i), 'R-TOOL-5'], [line(/unregistered|no provider knows/i), 'R-TOOL-3'], [line(/verbatim|braces|guidance/i), 'R-TOOL-7'],
    [line(/canonical|order/i), 'R-TOOL-2'], [null, 'R-TOOL']],
  '8': [[line(/unknown|\?\?|no placement/i), 'R-ORDER-7'], [line(/published|unchanged|alias/i), 'R-ORDER-6'], [null, 'R-ORDER-5']],
  '9': [[line(/unknown|no value|malformed|reference to|errors|complete `\{\{|`\{\{` that/i), 'R-RENDER-4'], [line(/variable-name|variable name/i), 'R-RENDER-1'],
    [line(/grammar|scanned|validatePromptTemplate/i), 'R-RENDER-8'], [null, 'R-RENDER']],
  '10': [[line(/sub-agent|parent scope/i), 'R-CONV-1'], [line(/clear|placeEntry|sentEntries|where one entry goes|entries a request carries|under `?policy/i), 'R-WIRE-3'],
    [line(/append|replace|asks for both|complete version/i), 'R-CONV-7'], [line(/snapshot/i), 'R-CONV-6'], [path(/conversation|record/), 'R-CONV-4'], [null, 'R-CONV']],
  '11': [[null, 'R-CONV-12']],
  '12': [[line(/breakpoint|cache_control|ttl/i), 'R-WIRE-6'], [null, 'R-WIRE']],
  '13': [[line(/ledger/i), 'R-LEDGER'], [path(/ledger/), 'R-LEDGER'], [line(/provenance|listener rewrote|added, rewrote or removed/i), 'R-WF-8'], [path(/provenance/), 'R-WF-8'],
    [path(/cli\/src\/errors/), 'R-CACHE-9'],
    [line(/less volatile|before a less|warns?\b|warnings/i), 'R-CACHE-9'], [line(/volatil|declared|declares|renders? differently/i), 'R-CACHE-8'],
    [path(/volatility|date\.spec|declared-clock/), 'R-CACHE-8'], [path(/checks?\.(ts|spec)/), 'R-CACHE-9'], [line(/cause|class/i), 'R-CACHE-6'],
    [line(/replay/i), 'R-CLI-7'], [path(/replay/), 'R-CLI-7'], [line(/history/i), 'R-CLI-8'], [path(/history/), 'R-CLI-8'],
    [line(/caching rules/i), 'R-CACHE-4'], [path(/caching-rules/), 'R-CACHE-4'], [line(/reuse report/i), 'R-CACHE-2'],
    [line(/cache stream|hash order/i), 'R-CACHE-1'], [path(/cache-stream|stream-order/), 'R-CACHE-1'], [null, 'R-CACHE-2']],
}

/** The pages of each old section, for a citation of several sections at once (`§4–§9`, `§6 and §10`). */
const PAGES_OF = {
  '1': ['R-VOCAB'], '2': ['R-VOCAB'], '3': ['R-SP'], '3.1': ['R-SP'], '4': ['R-SCOPE', 'R-ORDER'], '5': ['R-WF'], '6': ['R-RC'],
  '7': ['R-TOOL'], '8': ['R-ORDER'], '9': ['R-RENDER'], '10': ['R-CONV'], '11': ['R-CONV'], '12': ['R-WIRE'], '13': ['R-CACHE'],
}

/** Fixed phrases that name the old specification without a section sign, and test titles that numbered its sections. */
const PHRASES = [
  ['(`SPEC.md` §3–9)', '(`docs/reference/`: R-SP, R-ORDER, R-SCOPE, R-WF, R-RC, R-TOOL, R-RENDER)'],
  ['block says `(SPEC §10)` (compared', 'block names the section of the contract it pins, now `(R-CONV-1)` (compared'],
  ['SPEC asks for an earlier warning', 'the contract (R-TOOL-4) asks for an earlier warning'],
  ['with their titles and SPEC section references', 'with their titles and their citations of the contract (rule ids of `docs/reference/` since)'],
  ['with the SPEC message (and its `code`)', 'with the message of its catalogue (R-RENDER-4, and its `code`)'],
  ["'has the SPEC defaults and no toolOrder'", "'has the documented defaults (R-SP-7) and no toolOrder'"],
  ["'allocates exactly the SPEC section and context names'", "'allocates exactly the section and context names of R-ORDER-5'"],
  ["(the SPEC's tie-break and", '(the tie-break of R-ORDER-1 and'],
  ['pins the SPEC examples', 'pins the examples of R-RENDER-4'],
  ["'§2 default-exports the service class, so a deployment row can name the package alone'", "'default-exports the service class, so a deployment row can name the package alone (R-VOCAB-10)'"],
  ["describe('§3 exports'", "describe('exports (R-SP-6)'"],
  ["describe('§3 PromptAssembly'", "describe('PromptAssembly (R-SP-6)'"],
  ["describe('§3 declaration merging'", "describe('declaration merging (R-SP-6)'"],
  ["describe('§3 assemble(): every failure is a rejection'", "describe('assemble(): every failure is a rejection (R-SP-2)'"],
  ['SPEC_SECTIONS', 'REFERENCE_SECTIONS'],
  ['SPEC_CONTEXTS', 'REFERENCE_CONTEXTS'],
]

/** "SPEC §4", "`SPEC.md` §4–§9", "SPEC §6 and §10", "SPEC §12, §13": the citation and its section list. */
const CITATION = /`?SPEC(?:\.md)?`?\s*§(\d+(?:\.\d+)?)((?:\s*(?:,|and|–|-)\s*§?\d+(?:\.\d+)?)*)/g

/** The sections a citation names, ranges expanded. */
function sectionsOf(first, rest) {
  const tokens = [first, ...[...rest.matchAll(/(,|and|–|-)\s*§?(\d+(?:\.\d+)?)/g)].map(([, sep, n]) => (sep === '–' || sep === '-' ? `-${n}` : n))]
  const out = []
  for (const token of tokens) {
    if (token.startsWith('-')) {
      const from = Number(out[out.length - 1])
      for (let n = from + 1; n <= Number(token.slice(1)); n++) out.push(String(n))
    } else out.push(token)
  }
  return out
}

/** The rule a citation of `section` on `text` in `file` means. */
function ruleFor(section, text, file) {
  const choices = SECTIONS[section] ?? SECTIONS[section.split('.')[0]]
  if (!choices) throw new Error(`${file}: no mapping for section ${section}`)
  return choices.find(([test]) => test === null || test(text, file))[1]
}

/** `rule` as `file` cites it: a link in Markdown, the id elsewhere. */
function cite(rule, file) {
  if (!file.endsWith('.md')) return rule
  const page = PAGES[rule.replace(/-\d+$/, '')]
  return `[${rule}](${relative(dirname(file), join('docs/reference', page)).split('\\').join('/')})`
}

function rewrite(text, file) {
  let out = text
  for (const [from, to] of PHRASES) out = out.split(from).join(to)
  return out.split('\n').map((textLine) => textLine.replace(CITATION, (_whole, first, rest) => {
    const sections = sectionsOf(first, rest)
    const rules = [...new Set(sections.length === 1 ? [ruleFor(sections[0], textLine, file)] : sections.flatMap((section) => PAGES_OF[section]))]
    return rules.map((rule) => cite(rule, file)).join(', ')
  })).join('\n')
}

const check = process.argv.includes('--check')
const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: REPO, encoding: 'utf8' })
  .split('\n').filter((file) => /\.(?:ts|mts|cts|js|mjs|cjs|md|ya?ml)$/.test(file) && file !== SELF && !file.startsWith('docs/reference/'))
const changed = []
for (const file of files) {
  let text
  try { text = readFileSync(join(REPO, file), 'utf8') } catch { continue }
  const next = rewrite(text, file)
  if (next === text) continue
  changed.push(file)
  if (!check) writeFileSync(join(REPO, file), next)
}
console.log(changed.length ? `${check ? 'would rewrite' : 'rewrote'} ${changed.length} files:\n${changed.join('\n')}` : 'no citation of the old specification left')
if (check && changed.length) process.exit(1)
