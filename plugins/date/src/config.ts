/**
 * The configuration of `dsh-plugin-date`, as a schemastery schema with every key described.
 * @module
 */
import z from 'schemastery'
import { isTimeZone } from './day.js'
import { unknownTimeZone } from './errors.js'

/** The resolved configuration. */
export interface Config {
  /** The IANA time zone whose calendar day `{{date}}` shows. */
  timeZone: string
  /** The clock (default `Date.now`); for tests and replays. */
  now?: () => Date | number
}

/** What a deployment may write: every key is optional. */
export type ConfigInput = Partial<Config>

const fields = z.object({
  timeZone: z.string().default('UTC')
    .description('The IANA time zone whose calendar day `{{date}}` shows, for example `Europe/Berlin`. Default `UTC`.'),
  now: z.function()
    .description('The clock, returning a Date or a millisecond timestamp (default `Date.now`). Set it from code, for tests and replays.'),
})

/** The schemastery schema of {@link Config}: the time zone is checked against the runtime's `Intl`. */
export const Config: z<ConfigInput, Config> = z.transform(fields, (value) => {
  const config = value as Config
  if (!isTimeZone(config.timeZone)) throw unknownTimeZone(config.timeZone)
  return config
}, true).default({} as Config /* every key has its own default */) as unknown as z<ConfigInput, Config>
