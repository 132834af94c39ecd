/**
 * The first-party placement allocation (seed `003_*`): first-party plugins ask the service for their
 * order by name instead of writing numbers. Section values are unique integers at least ten apart.
 * @module
 */
import { unknownPlacement } from './errors.js'
import type { SectionBand } from './types.js'

/** The persona prefix section's name. */
export const PERSONA_SECTION = 'deployment:persona'
/** The persona prefix section's order. */
export const PERSONA_ORDER = 0
/** The persona suffix section: registered in band `last`, so it renders after every other section. */
export const PERSONA_SUFFIX_SECTION = 'deployment:persona-suffix'
/** The suffix's nominal order (its band puts it last whatever the orders). */
export const PERSONA_SUFFIX_ORDER = Number.MAX_SAFE_INTEGER
/** The harness identity line's section name. */
export const IDENTITY_SECTION = 'harness:identity'

/** Named first-party section placements. */
export const SECTION_PLACEMENTS: Readonly<Record<string, number>> = Object.freeze({
  'harness:identity': -1000,
  'harness:source': -900,
  'app:web-surface': -800,
  'deployment:persona': 0,
  'plan:policy': 500,
  'team:policy': 600,
  'tools:ptc-only': 800,
  'context:file-reference': 900,
  'tool:bash': 1000,
  'tool:pwsh': 1010,
  'tool:read': 1100,
  'tool:write': 1200,
  'tool:edit': 1300,
  'tool:glob': 1400,
  'tool:grep': 1500,
  'tool:jobs': 1600,
  'tool:pty': 1700,
  'tool:web_search': 2000,
  'tool:web_fetch': 2100,
  'tool:lsp': 2200,
  'tool:session-query': 2300,
  'tool:goal': 2400,
  'tool:cordis': 2500,
  'tool:workflow': 2600,
  'tool:ralph': 2700,
  'subagent:continuable': 2800,
  'tool:report': 2900,
  'tools:sdk': 5000,
  'deliverable:file-references': 9000,
  'tool:structured_output': 9900,
})

/**
 * The bands of named placements: a section registered under such a name without a `band` of its own
 * takes this one, so a scope that shadows the persona suffix still renders it last.
 */
export const SECTION_BANDS: Readonly<Record<string, SectionBand>> = Object.freeze({
  [PERSONA_SUFFIX_SECTION]: 'last',
})

/** Named first-party runtime-context placements (an independent sequence). */
export const CONTEXT_PLACEMENTS: Readonly<Record<string, number>> = Object.freeze({
  'sandbox:policy': 110,
  'approval:policy': 115,
  'subagent:delegation': 120,
})

/** The order of a named first-party section; unknown names throw. */
export function getSectionOrder(name: string): number {
  if (!Object.hasOwn(SECTION_PLACEMENTS, name)) throw unknownPlacement('section', name, Object.keys(SECTION_PLACEMENTS))
  return SECTION_PLACEMENTS[name]
}

/** The order of a named first-party runtime context; unknown names throw. */
export function getContextOrder(name: string): number {
  if (!Object.hasOwn(CONTEXT_PLACEMENTS, name)) throw unknownPlacement('context', name, Object.keys(CONTEXT_PLACEMENTS))
  return CONTEXT_PLACEMENTS[name]
}
