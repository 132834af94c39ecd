import { expect } from 'chai'
import { appendFile, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { FileConversationStore, MemoryConversationStore, type AppendOptions, type ConversationStore, type StoreKey } from 'dsh-store'
import { conformanceCases, runCase, runConformance, type ConformanceFactory } from 'dsh-store/conformance'

/** A store that keeps entries as parsed JSON and writes them back with sorted keys: what a JSONB column does to key order. */
class KeyReorderingStore extends MemoryConversationStore implements ConversationStore {
  override append(key: StoreKey, entries: readonly string[], options: AppendOptions) {
    return super.append(key, entries.map((line) => { try { return JSON.stringify(sortKeys(JSON.parse(line))) } catch { return line } }), options)
  }
}

/** A store that re-serialises each entry as it is (key order kept): what a JSON column read back through JSON.parse does to numbers and escapes. */
class ReserialisingStore extends MemoryConversationStore implements ConversationStore {
  override append(key: StoreKey, entries: readonly string[], options: AppendOptions) {
    return super.append(key, entries.map((line) => { try { return line.includes('\n') ? line : JSON.stringify(JSON.parse(line)) } catch { return line } }), options)
  }
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (typeof value !== 'object' || value === null) return value
  return Object.fromEntries(Object.keys(value).sort().map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]))
}

const memory: ConformanceFactory = async () => {
  const data = new Map()
  return { open: async () => new MemoryConversationStore(data) }
}

const file: ConformanceFactory = async () => {
  const folder = await mkdtemp(join(tmpdir(), 'dsh-store-'))
  return {
    open: async () => new FileConversationStore(folder),
    // A crash after part of the data was written and before the commit record was replaced.
    async tear(key, entries) {
      const text = entries.map((line) => line + '\n').join('')
      await appendFile(new FileConversationStore(folder).fileOf(key), text.slice(0, Math.floor(text.length * 0.6)))
    },
    dispose: () => rm(folder, { recursive: true, force: true }),
  }
}

describe('dsh-store: the conformance suite (R-STORE)', () => {
  for (const [name, factory] of [['MemoryConversationStore', memory], ['FileConversationStore', file]] as const) {
    describe(name, () => {
      for (const check of conformanceCases) {
        if (check.needsTear && name === 'MemoryConversationStore') continue
        it(check.name, async () => {
          expect(await runCase(check, factory)).to.equal('passed')
        })
      }
    })
  }

  it('a store that reorders JSON keys fails the byte case, and only the cases that compare bytes', async () => {
    const results = await runConformance(async () => {
      const data = new Map()
      return { open: async () => new KeyReorderingStore(data) }
    })
    const failed = results.filter((result) => result.outcome === 'failed').map((result) => result.name)
    expect(failed).to.include('every entry comes back byte for byte: key order, number spelling, escapes and whitespace as appended')
    expect((results.find((result) => result.name.startsWith('every entry comes back'))!.error as Error).message).to.include('entry 0 came back changed')
    // Its other failures are the cases whose entries put "n" before "text": sorting moves "hash" too.
    expect(results.filter((result) => result.outcome === 'passed').length).to.be.greaterThan(0)
  })

  it('a store that re-serialises JSON (numbers, escapes, whitespace) fails the byte case at the first such entry', async () => {
    const results = await runConformance(async () => {
      const data = new Map()
      return { open: async () => new ReserialisingStore(data) }
    })
    const bytes = results.find((result) => result.name.startsWith('every entry comes back'))!
    expect(bytes.outcome).to.equal('failed')
    expect((bytes.error as Error).message).to.include('entry 1 came back changed')
    // Canonical entries pass through it unchanged: every other case passes.
    expect(results.filter((result) => result.outcome === 'failed').map((result) => result.name)).to.deep.equal([bytes.name])
  })

  it('runConformance reports every case of a conforming store as passed, and the crash case as not applicable without tear()', async () => {
    const results = await runConformance(memory)
    expect(results.map((result) => result.outcome)).to.deep.equal(conformanceCases.map((check) => (check.needsTear ? 'not-applicable' : 'passed')))
  })
})
