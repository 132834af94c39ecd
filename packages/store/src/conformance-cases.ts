/**
 * The cases of the conformance suite, each a plain async check (node:assert) on stores opened from one
 * fresh storage. Entries are built here so their bytes are known: the byte case holds spellings that a
 * store which parses and re-serialises (JSONB, a JSON column re-stringified) changes.
 * @module
 */
import assert from 'node:assert/strict'
import { loadAll, type ConversationStore, type StoreKey } from './store.js'

/** Fresh, empty storage, and how to open stores on it. */
export interface ConformanceTarget {
  /** A new store instance on this storage (each call another instance: another worker). */
  open(): Promise<ConversationStore>
  /**
   * Leaves, on this storage, what a crash part-way through appending `entries` to `key` leaves (a file
   * store: part of their bytes and no commit; a database: a transaction never committed). Without it,
   * the case "restart mid-append" does not apply to the store (a store in memory cannot crash alone).
   */
  tear?(key: StoreKey, entries: readonly string[]): Promise<void>
  /** Releases the storage (closes what `open` opened, removes folders). */
  dispose?(): Promise<void>
}

/** One behaviour every store owes. */
export interface ConformanceCase {
  readonly name: string
  /** Whether the case needs the target's `tear` (a crash part-way through an append). */
  readonly needsTear?: boolean
  run(target: ConformanceTarget): Promise<void>
}

const MAIN: StoreKey = { conversation: 'conformance' }

/** Entry `n` of a run named `tag`: a canonical line whose hash is `tag-n`. */
export function entry(n: number, tag = 'h', fields: Record<string, unknown> = {}): string {
  return JSON.stringify({ n, text: `entry ${n}`, ...fields, hash: `${tag}-${n}` })
}

const entries = (from: number, to: number, tag = 'h') => Array.from({ length: to - from }, (_, i) => entry(from + i, tag))

/** Awaits `promise` and returns its rejection, failing when it resolves or rejects without `code`. */
async function rejection(promise: Promise<unknown>, code: string): Promise<{ code: string; details: Record<string, unknown> }> {
  try {
    await promise
  } catch (error) {
    assert.equal((error as { code?: unknown }).code, code, `expected ${code}, received ${(error as Error).message}`)
    return error as { code: string; details: Record<string, unknown> }
  }
  assert.fail(`expected the call to be refused with ${code}, but it resolved`)
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = []
  for await (const item of items) out.push(item)
  return out
}

/**
 * Lines that come back changed from a store that parses and re-writes JSON: keys out of sorted order,
 * numbers spelled as JSON allows but `JSON.stringify` does not write (`1.50`, `1e3`, `-0`, an integer
 * past 2^53), escapes a serialiser would undo, and a long text field as a prompt version carries
 * (stored apart by stores that keep texts once), canonical and not.
 */
export function byteLines(): string[] {
  const prompt = `You are the agent. ${'Rules: keep the prefix byte-stable. '.repeat(120)}`
  return [
    '{"zeta":1,"alpha":2,"middle":{"y":true,"b":null},"hash":"b-1"}',
    '{"n":[1.50,1e3,-0,0.1,12345678901234567890,1E-7],"hash":"b-2"}',
    '{"text":"caf\\u00e9 \\u2028 \\/ \\ud83d\\ude00 ☕","hash":"b-3"}',
    JSON.stringify({ role: 'system', source: 'system-prompt', promptVersion: 1, content: prompt, hash: 'b-4' }),
    `{"role":"system","content":${JSON.stringify(prompt).replace('agent', 'a\\u0067ent')},"hash":"b-5"}`,
    JSON.stringify({ role: 'system', source: 'system-prompt', promptVersion: 2, content: prompt, hash: 'b-6' }),
    '{ "spaced" : [ 1 , 2 ] ,"hash":"b-7"}',
  ]
}

export const CONFORMANCE_CASES: readonly ConformanceCase[] = [
  {
    name: 'appends keep their order, and head() reports the last entry\'s hash and the count',
    async run(target) {
      const store = await target.open()
      assert.deepEqual(await store.head(MAIN), { head: '', length: 0 })
      assert.deepEqual(await store.append(MAIN, entries(0, 3), { expectedHead: '' }), { head: 'h-2', length: 3 })
      assert.deepEqual(await store.append(MAIN, entries(3, 5), { expectedHead: 'h-2' }), { head: 'h-4', length: 5 })
      assert.deepEqual(await store.append(MAIN, [], { expectedHead: 'h-4' }), { head: 'h-4', length: 5 })
      assert.deepEqual(await loadAll(store, MAIN), entries(0, 5))
      assert.deepEqual(await store.head(MAIN), { head: 'h-4', length: 5 })
    },
  },
  {
    name: 'load(key, { from }) yields the entries from that index, as the caller iterates',
    async run(target) {
      const store = await target.open()
      await store.append(MAIN, entries(0, 6), { expectedHead: '' })
      assert.deepEqual(await loadAll(store, MAIN, { from: 4 }), entries(4, 6))
      assert.deepEqual(await loadAll(store, MAIN, { from: 6 }), [])
      assert.deepEqual(await loadAll(store, MAIN, { from: 60 }), [])
      assert.deepEqual(await loadAll(store, { conversation: 'never-written' }), [])
      const iterator = store.load(MAIN)[Symbol.asyncIterator]()
      assert.deepEqual(await iterator.next(), { value: entry(0), done: false })
      await iterator.return?.()
    },
  },
  {
    name: 'an append at a stale head is STORE_CONFLICT naming both heads, and writes nothing',
    async run(target) {
      const store = await target.open()
      await store.append(MAIN, entries(0, 2), { expectedHead: '' })
      const error = await rejection(store.append(MAIN, [entry(9)], { expectedHead: '' }), 'STORE_CONFLICT')
      assert.deepEqual({ ...error.details }, { conversation: 'conformance', sub: undefined, expectedHead: '', head: 'h-1', length: 2 })
      await rejection(store.append(MAIN, [entry(9)], { expectedHead: 'h-0' }), 'STORE_CONFLICT')
      await rejection(store.append({ conversation: 'fresh' }, [entry(9)], { expectedHead: 'h-1' }), 'STORE_CONFLICT')
      assert.deepEqual(await loadAll(store, MAIN), entries(0, 2))
      assert.deepEqual(await store.head({ conversation: 'fresh' }), { head: '', length: 0 })
    },
  },
  {
    name: 'two writers append at the same head at once: exactly one wins, the other gets STORE_CONFLICT',
    async run(target) {
      const [first, second] = [await target.open(), await target.open()]
      await first.append(MAIN, entries(0, 1), { expectedHead: '' })
      const settled = await Promise.allSettled([
        first.append(MAIN, entries(1, 4, 'a'), { expectedHead: 'h-0' }),
        second.append(MAIN, entries(1, 4, 'b'), { expectedHead: 'h-0' }),
      ])
      const won = settled.findIndex((result) => result.status === 'fulfilled')
      assert.equal(settled.filter((result) => result.status === 'fulfilled').length, 1, 'exactly one append succeeds')
      const lost = settled[1 - won] as PromiseRejectedResult
      assert.equal((lost.reason as { code?: unknown }).code, 'STORE_CONFLICT')
      const winner = entries(1, 4, won === 0 ? 'a' : 'b')
      assert.deepEqual(await loadAll(second, MAIN), [entry(0), ...winner])
      // The loser reloads and retries at the new head.
      const { head } = await second.head(MAIN)
      await second.append(MAIN, entries(4, 5), { expectedHead: head })
      assert.deepEqual(await loadAll(first, MAIN), [entry(0), ...winner, entry(4)])
    },
  },
  {
    name: 'an append with one bad entry (not JSON, no hash, a line break) writes none of its entries',
    async run(target) {
      const store = await target.open()
      await store.append(MAIN, entries(0, 1), { expectedHead: '' })
      for (const [bad, index] of [['{"n":1', 1], ['{"n":1}', 1], ['[1,2]', 1], [`${entry(5).slice(0, -1)},\n"x":1}`, 1], ['{"hash":""}', 1]] as const) {
        const error = await rejection(store.append(MAIN, [entry(1), bad, entry(2)], { expectedHead: 'h-0' }), 'STORE_INVALID_ENTRY')
        assert.equal(error.details.index, index)
      }
      assert.deepEqual(await loadAll(store, MAIN), entries(0, 1))
      assert.deepEqual(await store.head(MAIN), { head: 'h-0', length: 1 })
    },
  },
  {
    name: 'a reader on another instance sees an append whole or not at all',
    async run(target) {
      const [writer, reader] = [await target.open(), await target.open()]
      await writer.append(MAIN, entries(0, 10), { expectedHead: '' })
      let done = false
      const appending = writer.append(MAIN, entries(10, 400), { expectedHead: 'h-9' }).finally(() => { done = true })
      const seen = new Set<number>()
      do seen.add((await loadAll(reader, MAIN)).length)
      while (!done)
      await appending
      seen.add((await loadAll(reader, MAIN)).length)
      for (const length of seen) assert.ok(length === 10 || length === 400, `a load returned ${length} entries, part of an append`)
      assert.deepEqual(await loadAll(reader, MAIN), entries(0, 400))
    },
  },
  {
    name: 'after a crash part-way through an append, a reopened store holds what was there before and appends at that head',
    needsTear: true,
    async run(target) {
      const before = await target.open()
      await before.append(MAIN, entries(0, 3), { expectedHead: '' })
      await target.tear!(MAIN, entries(3, 50, 'torn'))
      const after = await target.open()
      assert.deepEqual(await loadAll(after, MAIN), entries(0, 3))
      assert.deepEqual(await after.head(MAIN), { head: 'h-2', length: 3 })
      await after.append(MAIN, entries(3, 5), { expectedHead: 'h-2' })
      assert.deepEqual(await loadAll(after, MAIN), entries(0, 5))
      assert.deepEqual(await loadAll(await target.open(), MAIN), entries(0, 5))
    },
  },
  {
    name: 'sub-keys are ledgers of their own; list() and listSubkeys() name them in order',
    async run(target) {
      const store = await target.open()
      await store.append({ conversation: 'b' }, entries(0, 2, 'b'), { expectedHead: '' })
      await store.append({ conversation: 'a' }, entries(0, 1, 'a'), { expectedHead: '' })
      await store.append({ conversation: 'a', sub: 'fork/2' }, entries(0, 3, 'f2'), { expectedHead: '' })
      await store.append({ conversation: 'a', sub: 'agent/reviewer' }, entries(0, 1, 'r'), { expectedHead: '' })
      await store.append({ conversation: 'c', sub: 'only' }, entries(0, 1, 'c'), { expectedHead: '' })
      assert.deepEqual(await loadAll(store, { conversation: 'a', sub: 'fork/2' }), entries(0, 3, 'f2'))
      assert.deepEqual(await loadAll(store, { conversation: 'a' }), entries(0, 1, 'a'))
      assert.deepEqual(await store.listSubkeys('a'), ['agent/reviewer', 'fork/2'])
      assert.deepEqual(await store.listSubkeys('b'), [])
      assert.deepEqual(await collect(store.list()), [
        { conversation: 'a', length: 1, head: 'a-0' },
        { conversation: 'b', length: 2, head: 'b-1' },
      ])
    },
  },
  {
    name: 'delete removes a sub-key alone, or a conversation with its sub-keys; a deleted key starts again at head ""',
    async run(target) {
      const store = await target.open()
      await store.append({ conversation: 'a' }, entries(0, 2), { expectedHead: '' })
      await store.append({ conversation: 'a', sub: 'x' }, entries(0, 1, 'x'), { expectedHead: '' })
      await store.append({ conversation: 'a', sub: 'y' }, entries(0, 1, 'y'), { expectedHead: '' })
      await store.append({ conversation: 'b' }, entries(0, 1, 'b'), { expectedHead: '' })
      await store.delete({ conversation: 'a', sub: 'x' })
      assert.deepEqual(await store.listSubkeys('a'), ['y'])
      assert.deepEqual(await loadAll(store, { conversation: 'a' }), entries(0, 2))
      await store.delete({ conversation: 'a' })
      assert.deepEqual(await store.listSubkeys('a'), [])
      assert.deepEqual(await loadAll(store, { conversation: 'a', sub: 'y' }), [])
      assert.deepEqual(await store.head({ conversation: 'a' }), { head: '', length: 0 })
      assert.deepEqual((await collect(store.list())).map((item) => item.conversation), ['b'])
      await store.delete({ conversation: 'never-written' })
      await store.append({ conversation: 'a' }, entries(0, 1, 'again'), { expectedHead: '' })
      assert.deepEqual(await loadAll(await target.open(), { conversation: 'a' }), entries(0, 1, 'again'))
    },
  },
  {
    name: 'every entry comes back byte for byte: key order, number spelling, escapes and whitespace as appended',
    async run(target) {
      const store = await target.open()
      const lines = byteLines()
      await store.append(MAIN, lines.slice(0, 4), { expectedHead: '' })
      await store.append(MAIN, lines.slice(4), { expectedHead: 'b-4' })
      await store.append({ conversation: 'other' }, [lines[3]], { expectedHead: '' })
      const loaded = await loadAll(await target.open(), MAIN)
      assert.equal(loaded.length, lines.length)
      loaded.forEach((line, index) => assert.equal(line, lines[index], `entry ${index} came back changed`))
      assert.deepEqual(await loadAll(store, { conversation: 'other' }), [lines[3]])
      await store.delete({ conversation: 'other' })
      assert.deepEqual(await loadAll(store, MAIN, { from: 3 }), lines.slice(3))
    },
  },
  {
    name: 'a bad key or option is refused with STORE_INVALID_KEY or STORE_INVALID_OPTION',
    async run(target) {
      const store = await target.open()
      await rejection(store.append({ conversation: '' }, [entry(0)], { expectedHead: '' }), 'STORE_INVALID_KEY')
      await rejection(store.head({ conversation: 'a', sub: '' }), 'STORE_INVALID_KEY')
      await rejection(store.append(MAIN, [entry(0)], {} as { expectedHead: string }), 'STORE_INVALID_OPTION')
      await rejection(loadAll(store, MAIN, { from: -1 }), 'STORE_INVALID_OPTION')
      await rejection(store.listSubkeys(''), 'STORE_INVALID_KEY')
      assert.deepEqual(await store.head(MAIN), { head: '', length: 0 })
    },
  },
]

