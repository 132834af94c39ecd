import { readdirSync, readFileSync } from 'node:fs'
import { expect } from 'chai'
import * as scope from 'dsh-scope'

const SRC = new URL('../src/', import.meta.url)

/** Each source file of dsh-scope with the sibling files it imports (type-only imports included). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>()
  for (const file of readdirSync(SRC).filter((name) => name.endsWith('.ts'))) {
    const text = readFileSync(new URL(file, SRC), 'utf8')
    const targets = [...text.matchAll(/^(?:import|export)\b[^'"]*?from '\.\/([\w-]+)\.js'/gm)].map((match) => `${match[1]}.ts`)
    graph.set(file, targets)
  }
  return graph
}

/** A cycle in `graph` as a path of file names, or `undefined`. */
function findCycle(graph: Map<string, string[]>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>()
  const path: string[] = []
  const visit = (file: string): string[] | undefined => {
    if (state.get(file) === 'done') return undefined
    if (state.get(file) === 'open') return [...path.slice(path.indexOf(file)), file]
    state.set(file, 'open')
    path.push(file)
    for (const target of graph.get(file) ?? []) {
      const cycle = visit(target)
      if (cycle) return cycle
    }
    path.pop()
    state.set(file, 'done')
    return undefined
  }
  for (const file of graph.keys()) {
    const cycle = visit(file)
    if (cycle) return cycle
  }
  return undefined
}

describe('dsh-scope: its files depend on each other one way', () => {
  it('has no import cycle among its source files', () => {
    const graph = importGraph()
    expect(graph.get('scope.ts')).to.include('events.ts')
    expect(findCycle(graph)).to.equal(undefined)
  })

  it('keeps the parent chain out of scope.ts: events.ts reads it from parents.ts', () => {
    const graph = importGraph()
    expect(graph.get('events.ts')).to.include('parents.ts').and.not.include('scope.ts')
    expect(graph.get('parents.ts')).to.not.include.members(['scope.ts', 'events.ts', 'effect.ts'])
  })

  it('still exports every name from its root', () => {
    expect(Object.keys(scope)).to.include.members([
      'createScope', 'scopeOf', 'scopeLabel', 'scopeStats', 'isScopeActive', 'setScopeParent', 'parentOf', 'scopeChain',
      'ownEffect', 'ownerName', 'ownerScope', 'onScoped', 'defineScopedEvent', 'listenersFor', 'scopedListenerStats',
      'ScopedLayers', 'StampedLayers', 'NamedEntries', 'AnonymousEntries', 'bindScopeParent', 'scopeParentOf', 'scopeChainOf', 'scopeTarget', 'isScopeCarrier', 'carrierKeyOf', 'kScope', 'kOwner', 'GLOBAL', 'ScopeErrors',
    ])
  })
})
