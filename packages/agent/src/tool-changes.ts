/**
 * Tool changes without a cache bust (issue 21, item 4; R-TOOLS-CHANGE-1). An agent declares tools
 * request by request; the live set (what the assembly offers now) may differ from what the previous
 * request declared, because a plugin was disposed, a restriction hid a tool, or a tool appeared. Every
 * difference is classified (`classifyTools`: added, edited, reordered, removed; the rest the same) and
 * handled by the agent's tool-change policy, per kind:
 * - `removed`: `inert` (default) keeps the tool declared, byte for byte, until the next epoch; a call
 *   to it gets a coded `AGENT_TOOL_UNAVAILABLE` result, and the model is told once in an appended note.
 * - `added`: `append-path` (default) uses the format's documented append path when it is open for the
 *   request (`toolAppendChoice` of dsh-wire, R-TOOL-13: Anthropic's `tool_addition`, with
 *   `wire.toolAdditions`): the declared tools stay as they were, the note names the tool and carries its
 *   definition (`toolAdditions`), no break. Else it declares the tool at once after the others and
 *   reports the break with the reason (`fallback`); `epoch` announces it in an appended note and
 *   declares it at the next epoch.
 * - `edited`: `immediate` (default) declares the new definition; `epoch` keeps the old one declared,
 *   announces the new one and declares it at the next epoch.
 * - `reordered`: `keep` (default) keeps the declared order.
 * `immediate` for every kind is dsh's behaviour before the policy: the request declares the live set.
 * Pure and Cordis-free; the agent hands it the live tools and their owners. The classification is
 * `tool-classify.ts`'s, the note's words `tool-change-note.ts`'s, a refused call `tool-unavailable.ts`'s.
 * @module
 */
import type { CacheReport, ToolAppendChoice, ToolChange, WireFormat, WireTool } from 'dsh-wire'
import { IMMEDIATE_TOOL_CHANGE, type ToolChangePolicy } from './tool-change-policy.js'
import { classifyTools, sameTool, toolJson } from './tool-classify.js'
import { announcedLine, appendedChangeLine, appendedLine, editedLine, removalLine, toolChangeNote } from './tool-change-note.js'
import type { UnavailableTool } from './tool-unavailable.js'

export type { ToolChange, ToolChangeKind } from 'dsh-wire'
export { DEFAULT_TOOL_CHANGE, TOOL_CHANGE_CHOICES, ToolChangeSchema, toolChangePolicy, type ToolChangeOption, type ToolChangePolicy } from './tool-change-policy.js'

/** What one step declares, what changed, and the note to append (if any); `commit` keeps it once the request is built. */
export interface ToolPlan {
  readonly declared: readonly WireTool[]
  readonly changes: ToolChange[]
  readonly note: string | undefined
  /** The tools the note offers through the format's append path (the note entry's `toolAdditions`); empty for none. */
  readonly additions: readonly WireTool[]
  /** Keeps what the request declared (once it is built): the next request's plan starts from it. */
  commit(): void
  /** Adds the changes and their cost to the request's report, when it is measured (in step order). */
  report(report: CacheReport): void
}

/** What a restored agent's tool declarations start from (`restoredDeclaration()` of `ledger-tools.ts`). */
export interface RestoredDeclaration {
  readonly declared: readonly WireTool[]
  readonly appended: readonly WireTool[]
  /** The keys of what the notes since the epoch told (`removed:<tool>`). */
  readonly told: readonly string[]
  readonly reset: boolean
  /** The plugin behind each declared tool, as the ledger recorded it (format 4), by name. */
  readonly owners?: ReadonlyMap<string, string | null>
}

/** An agent's declared tools, request by request, under its policy. */
export class ToolDeclarations {
  private declared: readonly WireTool[] | undefined
  /** The tools offered through an append path since the last epoch, in order: not in `declared`, and still offered. */
  private appended: readonly WireTool[] = NO_TOOLS
  private owners = new Map<string, string | null>()
  private unavailable_ = new Map<string, UnavailableTool>()
  private told = new Set<string>()
  private reset = false
  /** The changes that stand without a break (inert, announced, order kept), reported when they first appear, not at every request. */
  private standing: ReadonlySet<string> = new Set<string>()
  private readonly tokens = new Map<WireFormat, number>()

  constructor(readonly policy: ToolChangePolicy) {}

  /** Tools a reply may call that the agent cannot run now, by name (the latest request's). */
  get unavailable(): ReadonlyMap<string, UnavailableTool> {
    return this.unavailable_
  }

  /** The hook of an epoch: the next request declares the live tools exactly, and inert and announced tools are dropped. */
  openEpoch(): void {
    this.reset = true
  }

  /**
   * A restored agent's starting point (`agents.restore()`, R-LEDGER-9): what the ledger's last request
   * declared, the tools appended since its epoch, and the removals its notes told, so the first request
   * is planned as the exported agent's next one would be. `reset`: an epoch opened after that request.
   */
  restore(state: RestoredDeclaration): void {
    this.declared = state.declared
    this.appended = state.appended
    this.told = new Set(state.told)
    this.reset = state.reset
    if (state.owners !== undefined) this.owners = new Map(state.owners)
  }

  /** The plugin behind the tool `name` as of the latest committed request (`null`: none known). */
  ownerOf(name: string): string | null {
    return this.owners.get(name) ?? null
  }

  /**
   * What the next request declares, given the `live` tools and their owners. `appendPath`: how an added
   * tool may enter this request, given how many tools it declares (`toolAppendChoice`); a string is the
   * `fallback` of a request with no append path.
   */
  plan(live: readonly WireTool[], ownerOf: (name: string) => string | null, appendPath: string | ((declared: number) => ToolAppendChoice)): ToolPlan {
    const policy = this.reset ? IMMEDIATE_TOOL_CHANGE : this.policy
    const choose = typeof appendPath === 'string' ? () => ({ fallback: appendPath }) : appendPath
    // Tools appended earlier stay out of the tools list while the request can read the notes that added
    // them; a request that cannot (another format, a model without the path) declares them after the others.
    const open = this.appended.length > 0 && !this.reset ? choose(this.declared?.length ?? 0) : undefined
    const fold = open && 'fallback' in open ? open : undefined
    const base = fold ? [...this.declared!, ...this.appended] : this.declared
    const appendedBefore = fold ? NO_TOOLS : this.appended
    const previous = base && appendedBefore.length ? [...base, ...appendedBefore] : base
    // The common case, nothing changed: one pass, no classification.
    const unchanged = previous !== undefined && previous.length === live.length && previous.every((tool, i) => sameTool(tool, live[i]))
    // Nothing changed, nothing stands (no inert or announced tool, nothing told, no appended tool to
    // declare now): the previous declaration again, and only what the full pass would leave behind (no
    // standing change, the owners; the appended tools stay appended).
    if (base !== undefined && unchanged && !this.reset && this.unavailable_.size === 0 && this.told.size === 0 && !fold) {
      return {
        declared: base, changes: [], note: undefined, additions: NO_TOOLS,
        commit: () => {
          this.standing = NOTHING_STANDS
          for (const tool of live) this.owners.set(tool.name, ownerOf(tool.name))
        },
        report: (report) => { this.tokens.set(report.format, report.requestTokens) },
      }
    }
    const classes = previous && !unchanged ? classifyTools(previous, live) : []
    const liveByName = new Map(live.map((tool) => [tool.name, tool]))
    const owner = (name: string) => (liveByName.has(name) ? ownerOf(name) : this.owners.get(name) ?? null)
    const changes: ToolChange[] = []
    const unavailable = new Map<string, UnavailableTool>()
    const lines: string[] = []
    // What the note tells, and what becomes untold (a tool back), kept only once the request is built.
    const told = new Set<string>()
    const untold: string[] = []
    const tell = (key: string, line: string) => {
      if (this.told.has(key) || told.has(key)) return
      told.add(key)
      lines.push(line)
    }
    let declared: WireTool[]
    // What the next plan starts from: the tools appended by now, and those this request's note adds.
    let appended: readonly WireTool[] = NO_TOOLS
    const additions: WireTool[] = []
    // A tool appended earlier and now declared at once (`fold`): a break, reported with its reason.
    if (fold) for (const tool of this.appended) changes.push({ tool: tool.name, kind: 'added', owner: owner(tool.name), handling: 'declared', breaks: true, cost: 0, fallback: fold.fallback })
    if (!previous || policy === IMMEDIATE_TOOL_CHANGE || isImmediate(policy)) {
      declared = [...live]
      for (const row of classes) if (row.kind !== 'same') changes.push({ tool: row.tool, kind: row.kind, owner: owner(row.tool), handling: 'declared', breaks: true, cost: 0 })
    } else {
      const wasAppended = new Set(appendedBefore.map((tool) => tool.name))
      const keptAppended: WireTool[] = []
      const kept: WireTool[] = []
      const inert: WireTool[] = []
      const kind = new Map(classes.map((row) => [row.tool, row.kind]))
      const change = (tool: string, handling: ToolChange['handling'], breaks: boolean, extra: Partial<ToolChange> = {}) =>
        changes.push({ tool, kind: kind.get(tool) as ToolChange['kind'], owner: owner(tool), handling, breaks, cost: 0, ...extra })
      for (const tool of previous) {
        const now = liveByName.get(tool.name)
        const rowKind = kind.get(tool.name)
        if (wasAppended.has(tool.name)) {
          // An appended tool keeps its place among the appended ones; a new definition goes by the path again.
          keptAppended.push(now && rowKind === 'edited' && policy.edited === 'immediate' ? now : tool)
          if (now && rowKind === 'edited' && policy.edited === 'immediate') {
            additions.push(now)
            change(tool.name, 'appended', false, viaOf(choose(declaredCount(previous, wasAppended))))
            tell(`appended:${tool.name}:${JSON.stringify(toolJson(now))}`, appendedChangeLine(tool.name))
          }
        }
        if (!now) {
          // An appended tool cannot leave the tools list (it is not in it): it stays offered, inert, until the epoch.
          if (policy.removed === 'immediate' && !wasAppended.has(tool.name)) { change(tool.name, 'declared', true); continue }
          if (!wasAppended.has(tool.name)) inert.push(tool)
          unavailable.set(tool.name, { owner: owner(tool.name), reason: 'removed' })
          change(tool.name, 'inert', false)
          const from = owner(tool.name)
          tell(`removed:${tool.name}`, removalLine(tool.name, from))
        } else if (wasAppended.has(tool.name)) {
          untold.push(`removed:${tool.name}`)
          if (rowKind === 'edited' && policy.edited === 'epoch') {
            change(tool.name, 'next-epoch', false)
            tell(`edited:${tool.name}:${JSON.stringify(toolJson(now))}`, editedLine(now))
          }
        } else if (rowKind === 'edited' && policy.edited === 'epoch') {
          kept.push(tool)
          change(tool.name, 'next-epoch', false)
          tell(`edited:${tool.name}:${JSON.stringify(toolJson(now))}`, editedLine(now))
        } else {
          untold.push(`removed:${tool.name}`)
          kept.push(rowKind === 'edited' ? now : tool)
          if (rowKind === 'edited') change(tool.name, 'declared', true)
          else if (rowKind === 'reordered') change(tool.name, policy.reordered === 'keep' ? 'order-kept' : 'declared', policy.reordered !== 'keep')
        }
      }
      const added: WireTool[] = []
      for (const tool of live) {
        if (kind.get(tool.name) !== 'added') continue
        if (policy.added === 'epoch') {
          unavailable.set(tool.name, { owner: owner(tool.name), reason: 'not-yet-declared' })
          change(tool.name, 'next-epoch', false)
          tell(`added:${tool.name}`, announcedLine(tool))
        } else {
          const path = policy.added === 'append-path' ? choose(declaredCount(previous, wasAppended)) : undefined
          if (path && 'via' in path) {
            additions.push(tool)
            change(tool.name, 'appended', false, { via: path.via })
            const from = owner(tool.name)
            tell(`appended:${tool.name}`, appendedLine(tool.name, from))
            continue
          }
          added.push(tool)
          change(tool.name, 'declared', true, path ? { fallback: path.fallback } : {})
        }
      }
      appended = [...keptAppended, ...additions.filter((tool) => !wasAppended.has(tool.name))]
      // A new order declared at once: the live tools in the live order, inert ones after them.
      const keptByName = new Map(kept.map((tool) => [tool.name, tool]))
      declared = policy.reordered === 'immediate' && classes.some((row) => row.kind === 'reordered')
        ? [...live.filter((tool) => keptByName.has(tool.name) || added.includes(tool)).map((tool) => keptByName.get(tool.name) ?? tool), ...inert]
        : [...mergeInPlace(previous, kept, inert), ...added]
    }
    const note = toolChangeNote(lines)
    const key = (change: ToolChange) => `${change.kind}:${change.tool}:${change.handling}`
    // An added tool declared after the others stands out of the live order from then on: that is its place, not a change.
    const standing = new Set([...changes.filter((change) => !change.breaks).map(key), ...changes.filter((change) => change.kind === 'added').map((change) => `reordered:${change.tool}:order-kept`)])
    const reported = changes.filter((change) => change.breaks || !this.standing.has(key(change)))
    return {
      declared, changes: reported, note, additions,
      report: (report) => {
        this.attribute(reported, report)
        if (reported.length) report.toolChanges = reported
        this.tokens.set(report.format, report.requestTokens)
      },
      commit: () => {
        this.standing = standing
        this.declared = declared
        this.appended = appended
        for (const tool of declared) if (liveByName.has(tool.name)) this.owners.set(tool.name, ownerOf(tool.name))
        this.unavailable_ = unavailable
        for (const key of untold) this.told.delete(key)
        for (const key of told) this.told.add(key)
        if (this.reset) { this.reset = false; this.told.clear() }
      },
    }
  }

  /**
   * Gives the first breaking change its cost: the previous request's tokens (what a request that only
   * extended it would read from cache) less what the provider's rules predict this one reads.
   */
  private attribute(changes: ToolChange[], report: CacheReport): void {
    const previous = this.tokens.get(report.format)
    const first = report.breaks[0]
    if (previous === undefined || first?.kind !== 'tool') return
    const breaking = changes.filter((change) => change.breaks)
    const culprit = breaking.find((change) => change.tool === first.section) ?? breaking[0]
    if (culprit) culprit.cost = Math.max(0, previous - report.predictedCachedTokens)
  }
}

/** The previous order with the kept and inert tools in their places (a tool dropped now leaves its slot). */
function mergeInPlace(previous: readonly WireTool[], kept: readonly WireTool[], inert: readonly WireTool[]): WireTool[] {
  const byName = new Map([...kept, ...inert].map((tool) => [tool.name, tool]))
  return previous.filter((tool) => byName.has(tool.name)).map((tool) => byName.get(tool.name)!)
}

function isImmediate(policy: ToolChangePolicy): boolean {
  return policy.removed === 'immediate' && policy.added === 'immediate' && policy.edited === 'immediate' && policy.reordered === 'immediate'
}

/** The tools a request declares in its list (those of `previous` not appended), which an append path may need one of. */
function declaredCount(previous: readonly WireTool[], appended: ReadonlySet<string>): number {
  return previous.length - appended.size
}

/** The `via` of an append path that is open, else the fallback (an appended tool edited where the path is closed cannot happen: it was folded). */
function viaOf(choice: ToolAppendChoice): Partial<ToolChange> {
  return 'via' in choice ? { via: choice.via } : { fallback: choice.fallback }
}

const NO_TOOLS: readonly WireTool[] = Object.freeze([])

/** The standing changes after a request that changed nothing. */
const NOTHING_STANDS: ReadonlySet<string> = new Set()
