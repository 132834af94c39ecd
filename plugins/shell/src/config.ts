/**
 * The configuration of `dsh-plugin-shell`, as a schemastery schema with every key described.
 * @module
 */
import z from 'schemastery'
import { DEFAULT_LIMITS, type ShellLimits } from './bash.js'
import { emptyText, timeoutAboveMax } from './errors.js'

/** The resolved configuration. */
export interface Config extends ShellLimits {
  /** Replaces the built-in tool description. */
  description?: string
  /** `false` registers the tool without its `tool:bash` guidance section. */
  includeGuidance: boolean
  /** Replaces the built-in guidance text (emitted verbatim). */
  guidance?: string
}

/** What a deployment may write: every key is optional. */
export type ConfigInput = Partial<Config>

const fields = z.object({
  defaultTimeoutMs: z.natural().min(1000).default(DEFAULT_LIMITS.defaultTimeoutMs)
    .description('Timeout of a call that passes no `timeout_ms`, in milliseconds. Stated in the description, schema and guidance; set it to what your executor enforces.'),
  maxTimeoutMs: z.natural().min(1000).default(DEFAULT_LIMITS.maxTimeoutMs)
    .description('The largest `timeout_ms` a call may ask for, in milliseconds (the schema\'s `maximum`).'),
  maxOutputBytes: z.natural().min(1).default(DEFAULT_LIMITS.maxOutputBytes)
    .description('Output beyond this many bytes is truncated by the executor; the guidance tells the model so.'),
  description: z.string()
    .description('Replaces the built-in tool description (the text sent with the schema in every request).'),
  includeGuidance: z.boolean().default(true)
    .description('Register the `tool:bash` guidance section with the tool. `false` sends the schema alone.'),
  guidance: z.string()
    .description('Replaces the built-in guidance text. Emitted verbatim: `{{…}}` is not interpolated.'),
})

/** The schemastery schema of {@link Config}: cross-field checks run after the per-key ones. */
export const Config: z<ConfigInput, Config> = z.transform(fields, (value) => {
  const config = value as Config
  if (config.defaultTimeoutMs > config.maxTimeoutMs) {
    throw timeoutAboveMax(config.defaultTimeoutMs, config.maxTimeoutMs)
  }
  for (const key of ['description', 'guidance'] as const) {
    if (config[key] !== undefined && !config[key].trim()) throw emptyText(key)
  }
  return config
}, true).default({} as Config /* every key has its own default */) as z<ConfigInput, Config>
