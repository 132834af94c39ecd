/**
 * Token counting time against the text's shape (issue 20, item 1: counting costs linear time whatever the
 * shape). Counts 1 MB of words, of base64 and of one unbroken run of letters with `dsh-wire`'s o200k
 * counter (bounded pieces), prints the time per MB of each and its ratio to words; then, for contrast,
 * the encoder handed one unbroken run whole (what a count did before): 8, 16 and 32 KB, whose times grow
 * with the square of the length. Texts come from a fixed seed; each figure is the best of 3 rounds.
 *
 *   node --conditions=source --import tsx/esm bench/token-count.ts
 */
import { performance } from 'node:perf_hooks'
import { clearMergeCache, encode } from 'gpt-tokenizer/encoding/o200k_base'
import { loadO200k, MAX_PIECE } from 'dsh-wire'

const MB = 1024 * 1024

/** A small fixed-seed generator (mulberry32), so every run counts the same texts. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const WORDS = ('the of and to in is that for it as with was on be by this are from at or an which not have has but can all were when one their there ' +
  'been if more would will so no what up out into them some could time other than then now only its also over new after first use two may ' +
  'section prompt tool agent request cache token model provider context render order scope plugin variable session conversation reply').split(' ')

function words(bytes: number, next: () => number): string {
  let text = ''
  while (text.length < bytes) {
    const word = WORDS[Math.floor(next() * WORDS.length)]
    const r = next()
    text += word + (r < 0.06 ? '.\n' : r < 0.12 ? ', ' : ' ')
  }
  return text.slice(0, bytes)
}

const base64 = (bytes: number, next: () => number) => Buffer.from(Array.from({ length: Math.ceil(bytes * 0.75) }, () => Math.floor(next() * 256))).toString('base64').slice(0, bytes)
const run = (bytes: number, next: () => number) => Array.from({ length: bytes }, () => String.fromCharCode(97 + Math.floor(next() * 26))).join('')

function best(work: () => unknown, rounds = 3): number {
  let fastest = Infinity
  for (let i = 0; i < rounds; i++) {
    const start = performance.now()
    work()
    fastest = Math.min(fastest, performance.now() - start)
  }
  return fastest
}

const o200k = await loadO200k()
o200k.count(words(64 * 1024, random(7)))
console.log(`token-count: node ${process.version}; o200k_base in pieces of at most ${MAX_PIECE} characters; best of 3\n`)
const shapes = { words: words(MB, random(1)), base64: base64(MB, random(2)), 'one unbroken run': run(MB, random(3)) }
let baseline = 0
for (const [label, text] of Object.entries(shapes)) {
  let tokens = 0
  const ms = best(() => { tokens = o200k.count(text) })
  baseline ||= ms
  console.log(`${`1 MB of ${label}`.padEnd(26)} ${ms.toFixed(0).padStart(6)} ms   ${(ms / baseline).toFixed(2)}x words   ${tokens} tokens${o200k.measure(text).estimate ? ' (estimate)' : ''}`)
}
console.log('\nthe encoder handed one unbroken run whole (the count before):')
const none = { disallowedSpecial: new Set<string>() }
for (const kb of [8, 16, 32]) {
  const text = run(kb * 1024, random(4))
  // Each round from an empty merge cache, as the first count of a run meets it.
  const ms = best(() => { clearMergeCache(); encode(text, none) })
  console.log(`${`${kb} KB run in one piece`.padEnd(26)} ${ms.toFixed(0).padStart(6)} ms   (${(ms * (MB / (kb * 1024))).toFixed(0)} ms per MB at this length)`)
}
