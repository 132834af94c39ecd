/**
 * Validation of tool parameters as JSON Schema (draft-07, through Ajv's meta-schema check).
 * @module
 */
import { Ajv } from 'ajv'
import { invalidParameters } from './errors.js'

let ajv: Ajv | undefined

/**
 * Throws unless `parameters` is a JSON Schema describing an object (what chat-completions function
 * parameters must be). Unknown keywords are allowed (`strict: false`), as providers accept them.
 */
export function validateParameters(name: string, parameters: unknown): void {
  if (typeof parameters !== 'object' || parameters === null || Array.isArray(parameters)) {
    throw invalidParameters(name, `expected an object, received ${parameters === null ? 'null' : Array.isArray(parameters) ? 'an array' : typeof parameters}`)
  }
  ajv ??= new Ajv({ strict: false, validateFormats: false })
  if (!ajv.validateSchema(parameters)) {
    throw invalidParameters(name, ajv.errorsText(ajv.errors, { dataVar: 'parameters' }))
  }
  const type = (parameters as { type?: unknown }).type
  if (type !== 'object') {
    throw invalidParameters(name, `the top level must have "type": "object", found ${JSON.stringify(type ?? null)}`)
  }
}
