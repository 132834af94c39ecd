/**
 * The data behind `explain`: for one target, every rendered section and context with its order, owner,
 * layer, bytes, tokens and what it shadows; the sections and contexts dropped as empty; the tools with
 * owner, layer, bytes and tokens of their JSON as sent; the variables; and totals.
 * @module
 */
import type { ScopeKey } from 'dsh-scope'
import { assemblyNotes, type EntryChange, type EntryOrigin, type InspectedText, type RenderedPart } from 'dsh-system-prompt'
import type { BootedDeployment as Booted } from 'dsh-boot'
import { LISTENER_OWNER, ownersOf } from './owners.js'
import { byteLength } from './table.js'
import type { Tokenizer } from './tokens.js'
import { snapshotAbsence, toolOrigins, type PromptView } from './view.js'

/** One rendered section or context. */
export interface ExplainedText {
  /** 1-based position in the rendered prompt (or snapshot). */
  position: number
  /**
   * The `order` number; `last` for a section in band `last` (the persona suffix: rendered after all
   * others); `null` for one a listener added without an order.
   */
  order: number | 'last' | null
  name: string
  owner: string
  layer: string
  bytes: number
  tokens: number
  /** The same-named registrations it hides, nearest first, as `owner (layer)`. */
  shadows: string[]
  /** The text is computed at each assembly (a function). */
  dynamic: boolean
  /** What a `system-prompt/assemble` listener did to it (`rewritten by <plugin>`, `added by <plugin>`), or `null`. */
  changedBy: string | null
}

/**
 * Why a section or context is left out: `empty` (no text after interpolation), `tool hidden` (the
 * guidance of a tool that a restriction hides from this target), `complete` (a complete section is the
 * whole prompt, so every other section is left out), `removed` (a `system-prompt/assemble` listener took
 * it out; `by` names its plugin).
 */
export type DropReason = 'empty' | 'tool hidden' | 'complete' | 'removed'

/** A section or context that the target's request does not carry, and why. */
export interface DroppedText {
  name: string
  owner: string
  layer: string
  reason: DropReason
  /** For `removed`: the plugin of the listener that removed it. */
  by?: string
}

/** One tool as sent. */
export interface ExplainedTool {
  position: number
  name: string
  owner: string
  layer: string
  /** Bytes and tokens of the tool's JSON as the request carries it. */
  bytes: number
  tokens: number
}

/** One variable. */
export interface ExplainedVariable {
  name: string
  owner: string
  layer: string
  /** `null` when it has no value for this assembly. */
  value: string | null
  shadows: string[]
}

/** Bytes and tokens of one part of the request. */
export interface PartTotal {
  bytes: number
  tokens: number
}

/** Everything `explain` shows for one target. */
export interface Explanation {
  encoding: string
  sections: ExplainedText[]
  droppedSections: DroppedText[]
  contexts: ExplainedText[]
  droppedContexts: DroppedText[]
  /** The complete section that is the whole system prompt, or `null` when none is active. */
  completeSection: string | null
  /** `on`, or why the runtime context is off / empty. */
  runtimeContext: string
  tools: ExplainedTool[]
  variables: ExplainedVariable[]
  totals: { system: PartTotal & { sectionTokens: number }; snapshot: PartTotal; tools: PartTotal; all: PartTotal }
  /**
   * The parts whose token count is an estimate (`section "x"`, `context "y"`, `tool "z"`): each holds an
   * unbroken run of more than `MAX_PIECE` characters, counted in pieces (present only when there are any).
   */
  estimatedTokens?: string[]
}

/** Builds the explanation of `view` (which must come from `booted`). */
export function explain(booted: Booted, view: PromptView, tokenizer: Tokenizer): Explanation {
  const owners = ownersOf(booted)
  // A count that had to cut an unbroken run is an estimate: its part is named.
  const estimated: string[] = []
  const count = (label: string, text: string) => {
    const { tokens, estimate } = tokenizer.measure(text)
    if (estimate) estimated.push(label)
    return tokens
  }
  const scope = view.target.agent as ScopeKey | undefined
  const inspection = booted.services.systemPrompt.inspect(scope)
  const shadowsOf = (list: readonly InspectedText[], name: string) =>
    (list.find((entry) => entry.name === name)?.shadows ?? []).map((origin: EntryOrigin) => `${owners.plugin(origin.owner)} (${owners.layer(origin.scope)})`)
  const dynamicOf = (list: readonly InspectedText[], name: string) => !!list.find((entry) => entry.name === name)?.dynamic
  const provenance = assemblyNotes(view.assembly)?.provenance
  const changeOf = (changes: ReadonlyMap<string, EntryChange<unknown>> | undefined, name: string) => {
    const change = changes?.get(name)
    return change && change.action !== 'removed' ? `${change.action} by ${owners.plugin(change.by)}` : null
  }
  const texts = (kind: string, rendered: readonly RenderedPart[], inspected: readonly InspectedText[], changes: ReadonlyMap<string, EntryChange<unknown>> | undefined): ExplainedText[] =>
    rendered.map(({ name, text, entry }, index) => ({
      position: index + 1,
      order: 'band' in entry && entry.band === 'last' ? 'last' : entry.order ?? null,
      name,
      owner: entry.owner === undefined ? LISTENER_OWNER : owners.plugin(entry.owner),
      layer: owners.layer(entry.scope),
      bytes: byteLength(text),
      tokens: count(`${kind} ${JSON.stringify(name)}`, text),
      shadows: shadowsOf(inspected, name),
      dynamic: dynamicOf(inspected, name),
      changedBy: changeOf(changes, name),
    }))
  // Sections shown only with a tool that this assembly does not show: the assembly lists them.
  const hiddenWithTool = (assemblyNotes(view.assembly)?.hiddenWithTool ?? []).map((hidden) => hidden.section)
  const dropped = (all: ReadonlyArray<{ name: string; owner?: string; scope?: ScopeKey }>, rendered: readonly RenderedPart[], reason: (name: string) => DropReason): DroppedText[] => {
    const kept = new Set(rendered.map((part) => part.name))
    return all.filter((entry) => !kept.has(entry.name)).map((entry) => ({
      name: entry.name, owner: entry.owner === undefined ? LISTENER_OWNER : owners.plugin(entry.owner), layer: owners.layer(entry.scope), reason: reason(entry.name),
    }))
  }
  // A complete section is the whole prompt: the assembly carries it alone, so list what it leaves out.
  const complete = view.assembly.sections.some((section) => section.complete)
  const assembled = new Set(view.assembly.sections.map((section) => section.name))
  const leftOut = complete ? inspection.sections.filter((entry) => !assembled.has(entry.name)) : []

  const originOf = toolOrigins(booted, view.target)
  const tools = view.tools.map((tool, index) => {
    const json = JSON.stringify(tool)
    return { position: index + 1, name: tool.function.name, ...originOf(tool.function.name), bytes: byteLength(json), tokens: count(`tool ${JSON.stringify(tool.function.name)}`, json) }
  })

  const variables = inspection.variables.map((variable) => ({
    name: variable.name,
    owner: owners.plugin(variable.owner),
    layer: owners.layer(variable.scope),
    value: view.assembly.variables[variable.name] ?? null,
    shadows: variable.shadows.map((o) => `${owners.plugin(o.owner)} (${owners.layer(o.scope)})`),
  }))

  const sections = texts('section', view.sections, inspection.sections, provenance?.sections)
  const contexts = texts('context', view.contexts, inspection.contexts, provenance?.contexts)
  const removed = (changes: ReadonlyMap<string, EntryChange<{ name: string; owner?: string; scope?: ScopeKey }>> | undefined): DroppedText[] =>
    [...(changes?.values() ?? [])].filter((change) => change.action === 'removed').map(({ entry, by }) => ({
      name: entry.name, owner: entry.owner === undefined ? LISTENER_OWNER : owners.plugin(entry.owner), layer: owners.layer(entry.scope), reason: 'removed', by: owners.plugin(by),
    }))
  const part = (text: string): PartTotal => ({ bytes: byteLength(text), tokens: tokenizer.count(text) })
  const system = part(view.system)
  const snapshot = part(view.snapshot)
  const toolsTotal = view.tools.length ? part(JSON.stringify(view.tools)) : { bytes: 0, tokens: 0 }
  return {
    encoding: tokenizer.encoding,
    sections,
    completeSection: view.assembly.sections.find((section) => section.complete)?.name ?? null,
    droppedSections: [
      ...dropped(view.assembly.sections, view.sections, () => 'empty'),
      ...dropped(hiddenWithTool, [], () => 'tool hidden'),
      ...dropped(leftOut, [], () => 'complete'),
      ...removed(provenance?.sections),
    ],
    contexts,
    droppedContexts: [...dropped(view.assembly.contexts, view.contexts, () => 'empty'), ...removed(provenance?.contexts)],
    runtimeContext: view.snapshot ? 'on' : snapshotAbsence(booted, view.target).replace(/^\(|\)$/g, ''),
    tools,
    variables,
    totals: {
      system: { ...system, sectionTokens: sections.reduce((sum, s) => sum + s.tokens, 0) },
      snapshot,
      tools: toolsTotal,
      all: {
        bytes: system.bytes + snapshot.bytes + toolsTotal.bytes,
        tokens: system.tokens + snapshot.tokens + toolsTotal.tokens,
      },
    },
    ...(estimated.length ? { estimatedTokens: estimated } : {}),
  }
}
