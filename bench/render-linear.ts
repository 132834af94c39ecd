/**
 * Rendering time against text size (issue 6: the renderer runs in linear time). Renders 1, 2, 5 and 10 MB
 * texts of several shapes, prints the time per MB of each and the per-MB ratios 10 MB / 1 MB and 10 MB / 5 MB
 * (about 1 for linear time, about 10 and 2 for quadratic). Building a multi-megabyte result string costs
 * more per MB once it outgrows the young generation, so shapes that substitute show a constant step between
 * 2 and 5 MB and a flat 10 MB / 5 MB. Also times save-time validation, which scans the same grammar.
 *
 *   node --conditions=source --import tsx/esm bench/render-linear.ts
 */
import { performance } from 'node:perf_hooks'
import { renderPrompt, validatePromptTemplate } from 'dsh-system-prompt'

const MB = 1024 * 1024
const SIZES = [1, 2, 5, 10]

/** Text shapes, each a function from a size in bytes to a text of about that size. */
const SHAPES: Record<string, (bytes: number) => string> = {
  'plain text': (bytes) => 'lorem ipsum dolor sit amet '.repeat(Math.ceil(bytes / 27)).slice(0, bytes),
  'many {{var}} groups': (bytes) => 'see {{var}} and '.repeat(Math.ceil(bytes / 16)).slice(0, bytes - (bytes % 16)),
  'many lone {{': (bytes) => 'a {{ b '.repeat(Math.ceil(bytes / 7)).slice(0, bytes),
  'lone {{ then one }}': (bytes) => '{{'.repeat(bytes / 2 - 1) + '}}',
  'raw blocks': (bytes) => '{{#raw}}{{x}}{{/raw}} '.repeat(Math.ceil(bytes / 22)).slice(0, bytes - (bytes % 22)),
}

function best(run: () => unknown, rounds = 5): number {
  let fastest = Infinity
  for (let i = 0; i < rounds; i++) {
    const start = performance.now()
    run()
    fastest = Math.min(fastest, performance.now() - start)
  }
  return fastest
}

function render(text: string): void {
  try {
    renderPrompt({ sections: [{ name: 'big', order: 0, text }], variables: { var: 'value' } })
  } catch {
    // Shapes that are errors by the rules (a {{ closed by a later }}) fail fast; the time still counts.
  }
}

function row(label: string, perMb: number[]): void {
  const cells = perMb.map((ms) => `${ms.toFixed(2).padStart(8)} ms/MB`).join('  ')
  const ratio = (a: number, b: number) => (perMb[a] / perMb[b]).toFixed(2)
  console.log(`${label.padEnd(36)} ${cells}   10MB/1MB ${ratio(3, 0)}  10MB/5MB ${ratio(3, 2)}`)
}

// Warm the JIT on a small text of every shape before measuring.
for (const make of Object.values(SHAPES)) render(make(MB / 4))

console.log(`render-linear: node ${process.version}; best of 5; columns are ${SIZES.map((s) => `${s} MB`).join(', ')}\n`)
for (const [shape, make] of Object.entries(SHAPES)) {
  const texts = SIZES.map((size) => make(size * MB))
  row(`renderPrompt: ${shape}`, texts.map((text, i) => best(() => render(text)) / SIZES[i]))
}
console.log(`\nvalidatePromptTemplate (save-time check, same grammar) reports every problem with its position, so it runs on a\ntenth of the sizes: ${SIZES.map((s) => `${s / 10} MB`).join(', ')}\n`)
for (const shape of ['many {{var}} groups', 'many lone {{', 'lone {{ then one }}']) {
  const texts = SIZES.map((size) => SHAPES[shape](size * MB / 10))
  row(`validate: ${shape}`, texts.map((text, i) => best(() => validatePromptTemplate(text, ['var']), 2) / (SIZES[i] / 10)))
}
