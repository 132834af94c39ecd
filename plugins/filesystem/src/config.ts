/**
 * The configuration of `dsh-plugin-filesystem`, as a schemastery schema with every key described.
 * @module
 */
import z from 'schemastery'
import type { FileToolOverride, FileToolSelection } from './catalog.js'
import {
  emptyOverride, idleOverride, noTools, overrideNotOffered, repeatedTool, unknownOverride, unknownTools,
} from './errors.js'
import { DEFAULT_FILE_LIMITS, FILE_TOOL_NAMES, type FileToolName } from './spec.js'

/** The resolved configuration. */
export interface Config extends FileToolSelection {
  /** The tools to offer (default: all five). */
  tools: FileToolName[]
  readLineLimit: number
  includeGuidance: boolean
  overrides: Partial<Record<FileToolName, FileToolOverride>>
}

/** What a deployment may write: every key is optional, tool names are plain strings until checked. */
export interface ConfigInput {
  tools?: string[]
  readLineLimit?: number
  includeGuidance?: boolean
  overrides?: Record<string, FileToolOverride>
}

const fields = z.object({
  tools: z.array(z.string()).default([...FILE_TOOL_NAMES])
    .description(`The tools to offer, a subset of ${FILE_TOOL_NAMES.join(', ')} (default: all). Their guidance renders in the named placement order whatever the order here.`),
  readLineLimit: z.natural().min(1).default(DEFAULT_FILE_LIMITS.readLineLimit)
    .description('The most lines one `read` call returns. Stated in read\'s description, schema and guidance; set it to what your executor enforces.'),
  includeGuidance: z.boolean().default(true)
    .description('Register each tool\'s `tool:<name>` guidance section with it. `false` sends the schemas alone.'),
  overrides: z.dict(z.object({
    description: z.string().description('Replaces the tool\'s built-in description.'),
    guidance: z.string().description('Replaces the tool\'s built-in guidance. Emitted verbatim: `{{…}}` is not interpolated.'),
  })).default({})
    .description('Per-tool text replacements, keyed by tool name: `{ read: { description, guidance } }`. Only tools listed in `tools`.'),
})

const known: readonly string[] = FILE_TOOL_NAMES

/** The schemastery schema of {@link Config}: cross-field checks run after the per-key ones. */
export const Config: z<ConfigInput, Config> = z.transform(fields, (value) => {
  const tools = value.tools as string[]
  const unknown = tools.filter((name) => !known.includes(name))
  if (unknown.length) throw unknownTools([...new Set(unknown)], known)
  const repeated = tools.find((name, i) => tools.indexOf(name) !== i)
  if (repeated !== undefined) throw repeatedTool(repeated)
  if (!tools.length) throw noTools()
  const overrides = value.overrides as Record<string, FileToolOverride>
  const keys = Object.keys(overrides)
  const strangers = keys.filter((name) => !known.includes(name))
  if (strangers.length) throw unknownOverride(strangers, known)
  const idle = keys.filter((name) => !tools.includes(name))
  if (idle.length) throw overrideNotOffered(idle, tools)
  for (const name of keys) {
    if (overrides[name].description === undefined && overrides[name].guidance === undefined) throw idleOverride(name)
    for (const key of ['description', 'guidance'] as const) {
      const text = overrides[name][key]
      if (text !== undefined && !text.trim()) throw emptyOverride(name, key)
    }
  }
  return value as unknown as Config
}, true).default({} as Config /* every key has its own default */) as unknown as z<ConfigInput, Config>
