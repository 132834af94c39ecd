/**
 * `dsh-plugin-date`: the prompt variable `{{date}}`, today's date as `YYYY-MM-DD` in the configured time
 * zone. Day precision keeps the text (and the provider's cached prefix) stable for a whole day.
 * Default-exports the plugin, so a deployment row can name the package alone.
 * @module
 */
import type { Context } from 'cordis'
import type {} from 'dsh-system-prompt'
import { Config } from './config.js'
import { dayFormatter } from './day.js'

export { dayFormatter, isTimeZone } from './day.js'
export { Config } from './config.js'
export type { ConfigInput } from './config.js'
export * as DateErrors from './errors.js'

/** The plugin's name (the owner named in assemblies and error messages). */
export const name = 'dsh-plugin-date'

/** Services the plugin needs. */
export const inject = ['systemPrompt']

/** The variable's name: `{{date}}`. */
export const DATE_VARIABLE = 'date'

/**
 * Registers `{{date}}` through the plugin's context, read from the clock at every assembly: `config.now`,
 * else whatever `Date.now()` returns at that moment.
 */
export function apply(ctx: Context, config: Config): void {
  const format = dayFormatter(config.timeZone)
  // `Date.now()` is read at each call, not captured: a clock installed later (a replay's) reaches it.
  const now = config.now ?? (() => Date.now())
  // It changes at the day boundary by design: `check` accepts that, and a cache report can say why.
  ctx.systemPrompt.variable(DATE_VARIABLE, () => format(now()), { volatility: 'daily' })
}

/** The plugin object. */
export const DatePlugin = { name, inject, Config, apply }

export default DatePlugin
