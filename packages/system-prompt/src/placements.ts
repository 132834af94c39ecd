/**
 * The first-party placement allocation (seed `003_*`): first-party plugins ask the service for their
 * order by name instead of writing numbers. Section values are unique integers at least ten apart.
 * The constant names of the published package (`TOOL_READ`, `PLAN_POLICY`, ...) are aliases of the same
 * placements (R-ORDER-7), and an unknown name has no placement (`undefined`), so a published plugin's
 * `getSectionOrder('X') ?? 1000` keeps working.
 * @module
 */
import type { SectionBand } from './types.js'

/** The persona prefix section's name. */
export const PERSONA_SECTION = 'deployment:persona'
/**
 * The persona prefix section's name under the published 0.2 package's constant: the same section, so a
 * plugin that shadows the persona by this constant replaces it.
 */
export const PERSONA_PREFIX_SECTION = PERSONA_SECTION
/** The persona prefix section's order. */
export const PERSONA_ORDER = 0
/** The persona suffix section: registered in band `last`, so it renders after every other section. */
export const PERSONA_SUFFIX_SECTION = 'deployment:persona-suffix'
/**
 * The suffix's order: the published 0.2 package's number, above every placement, so a plugin written
 * for it that places itself at `+1`, `+2` gets distinct orders. Its band puts it last whatever the orders.
 */
export const PERSONA_SUFFIX_ORDER = 10200
/** The harness identity line's section name. */
export const IDENTITY_SECTION = 'harness:identity'

/** Named first-party section placements. */
export const SECTION_PLACEMENTS = Object.freeze({
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
  'tool:computer_use': 3000,
  'mcp:servers': 3100,
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

// A Map, not a property lookup on SECTION_BANDS: a freshly built name (`s${i}`) looked up as a property
// is first interned, which cost a registration about 0.2 µs (a quarter of it) here.
const BANDS_BY_NAME = new Map(Object.entries(SECTION_BANDS))

/** The band a section registered under `name` without one of its own takes (see {@link SECTION_BANDS}). */
export function placementBand(name: string): SectionBand | undefined {
  return BANDS_BY_NAME.get(name)
}

/** Named first-party runtime-context placements (an independent sequence). */
export const CONTEXT_PLACEMENTS = Object.freeze({
  'sandbox:policy': 110,
  'approval:policy': 115,
  'subagent:delegation': 120,
})

/** The published package's constant names of section placements, each an alias of a placement above. */
export const SECTION_PLACEMENT_ALIASES = Object.freeze({
  HARNESS_IDENTITY: 'harness:identity',
  HARNESS_SOURCE: 'harness:source',
  WEB_SURFACE: 'app:web-surface',
  DEPLOYMENT_PERSONA: PERSONA_SECTION,
  DEPLOYMENT_PERSONA_PREFIX: PERSONA_SECTION,
  DEPLOYMENT_PERSONA_SUFFIX: PERSONA_SUFFIX_SECTION,
  PLAN_POLICY: 'plan:policy',
  TEAM_POLICY: 'team:policy',
  PTC_ONLY: 'tools:ptc-only',
  FILE_REFERENCE: 'context:file-reference',
  TOOL_BASH: 'tool:bash',
  TOOL_PWSH: 'tool:pwsh',
  TOOL_READ: 'tool:read',
  TOOL_WRITE: 'tool:write',
  TOOL_EDIT: 'tool:edit',
  TOOL_GLOB: 'tool:glob',
  TOOL_GREP: 'tool:grep',
  TOOL_JOBS: 'tool:jobs',
  TOOL_PTY: 'tool:pty',
  TOOL_WEB_SEARCH: 'tool:web_search',
  TOOL_WEB_FETCH: 'tool:web_fetch',
  TOOL_LSP: 'tool:lsp',
  TOOL_SESSION_QUERY: 'tool:session-query',
  TOOL_GOAL: 'tool:goal',
  TOOL_CORDIS: 'tool:cordis',
  TOOL_WORKFLOW: 'tool:workflow',
  TOOL_RALPH: 'tool:ralph',
  TOOL_SUBAGENT: 'subagent:continuable',
  TOOL_REPORT: 'tool:report',
  TOOL_COMPUTER_USE: 'tool:computer_use',
  MCP_SERVERS: 'mcp:servers',
  TOOLS_SDK: 'tools:sdk',
  DELIVERABLE_FILE_REFERENCES: 'deliverable:file-references',
  STRUCTURED_OUTPUT: 'tool:structured_output',
} as const)

/**
 * Section names of the published packages that name a dsh section: a section registered under one is
 * registered under the dsh name (0.2 calls the persona prefix `deployment:persona-prefix`).
 */
export const SECTION_NAME_ALIASES: Readonly<Record<string, string>> = Object.freeze({
  'deployment:persona-prefix': PERSONA_SECTION,
})

// A Map, not `Object.hasOwn` on the table: a registration's name is often a string made at run time,
// which an own-property lookup must first internalise (a quarter of a microsecond per registration).
const SECTION_NAMES_BY_ALIAS: ReadonlyMap<string, string> = new Map(Object.entries(SECTION_NAME_ALIASES))

/** The dsh name of a section registered as `name` (`name` itself unless it is a published alias). */
export function sectionName(name: string): string {
  return SECTION_NAMES_BY_ALIAS.get(name) ?? name
}

/** The published package's constant names of runtime-context placements. */
export const CONTEXT_PLACEMENT_ALIASES = Object.freeze({
  SANDBOX_POLICY: 'sandbox:policy',
  APPROVAL_POLICY: 'approval:policy',
  SUBAGENT_DELEGATION: 'subagent:delegation',
} as const)

/** A name with a section placement: a first-party section name, the persona suffix, or a published alias. */
export type SectionPlacementName = keyof typeof SECTION_PLACEMENTS | typeof PERSONA_SUFFIX_SECTION | keyof typeof SECTION_PLACEMENT_ALIASES
/** A name with a runtime-context placement: a first-party context name or a published alias. */
export type ContextPlacementName = keyof typeof CONTEXT_PLACEMENTS | keyof typeof CONTEXT_PLACEMENT_ALIASES

// Every name getSectionOrder answers: the table, the suffix (band `last`, nominal order), and the aliases.
const SECTION_ORDERS: Readonly<Record<string, number>> = Object.freeze({
  ...SECTION_PLACEMENTS,
  [PERSONA_SUFFIX_SECTION]: PERSONA_SUFFIX_ORDER,
  ...Object.fromEntries(Object.entries(SECTION_PLACEMENT_ALIASES).map(([alias, name]) => [alias, name === PERSONA_SUFFIX_SECTION ? PERSONA_SUFFIX_ORDER : SECTION_PLACEMENTS[name]])),
})
const CONTEXT_ORDERS: Readonly<Record<string, number>> = Object.freeze({
  ...CONTEXT_PLACEMENTS,
  ...Object.fromEntries(Object.entries(CONTEXT_PLACEMENT_ALIASES).map(([alias, name]) => [alias, CONTEXT_PLACEMENTS[name]])),
})

/** The order of a named first-party section placement (or its published alias); `undefined` for any other name. */
export function getSectionOrder(name: SectionPlacementName): number
export function getSectionOrder(name: string): number | undefined
export function getSectionOrder(name: string): number | undefined {
  return typeof name === 'string' && Object.hasOwn(SECTION_ORDERS, name) ? SECTION_ORDERS[name] : undefined
}

/** The order of a named first-party runtime-context placement (or its published alias); `undefined` for any other name. */
export function getContextOrder(name: ContextPlacementName): number
export function getContextOrder(name: string): number | undefined
export function getContextOrder(name: string): number | undefined {
  return typeof name === 'string' && Object.hasOwn(CONTEXT_ORDERS, name) ? CONTEXT_ORDERS[name] : undefined
}
