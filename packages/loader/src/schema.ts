import { codeOf } from './errors.js'
import { formatKeyPath } from './source.js'

/** One issue of a Standard Schema validation (schemastery, zod, ... all produce these). */
export interface SchemaIssue {
  readonly message: string
  /** A code the issue carries (not part of Standard Schema; `dsh-prompt`'s `agents:` issues have one). */
  readonly code?: unknown
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }>
}

/** The result of a Standard Schema validation. */
export type SchemaResult<T = unknown> =
  | { readonly value: T; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<SchemaIssue> }

/**
 * A Standard Schema, as Cordis 4 uses for `plugin.Config`: schemastery schemas are ones. Declared
 * locally so the loader's types do not depend on `@standard-schema/spec`.
 */
export interface StandardSchemaLike<T = unknown> {
  readonly '~standard': {
    validate(value: unknown): SchemaResult<T> | Promise<SchemaResult<T>>
  }
}

/** The output type of a schema: a schemastery schema's return type, else Standard Schema's `output`. */
export type SchemaOutput<X> = X extends (data?: any, ...rest: any[]) => infer T
  ? T
  : X extends { readonly '~standard': { readonly types?: { readonly output: infer O } } } ? O : unknown

/**
 * A validation failure, flattened: the issue's message (prefixed with its `$.path`), its path, and the
 * code of its cause when it has one (the issue's own, or that of the error the schema threw).
 */
export interface ValidationFailure {
  message: string
  path: Array<string | number>
  code?: string
}

/** True when `value` has a Standard Schema `validate` function. */
export function isStandardSchema(value: unknown): value is StandardSchemaLike {
  const props = (value as { '~standard'?: { validate?: unknown } } | null | undefined)?.['~standard']
  return !!props && typeof props.validate === 'function'
}

/**
 * Validates `value` with `schema`. A schema that throws instead of returning issues (a schemastery
 * transform that throws a plain `Error`) is reported as one issue without a path. A schemastery schema
 * is called itself rather than through its Standard Schema adapter: the adapter turns a thrown
 * `ValidationError` into an issue with its words and path but drops the error's `code`, so a plugin's own
 * check (`FS_REPEATED_TOOL`, `DATE_UNKNOWN_TIME_ZONE`, ...) would reach the user as `LOADER_INVALID_CONFIG`.
 * Calling the schema runs the same resolution (`Schema.resolve(value, schema, {})[0]`) and keeps the code.
 */
export async function validate(schema: StandardSchemaLike, value: unknown): Promise<{ ok: true; value: unknown } | { ok: false; failures: ValidationFailure[] }> {
  if (isSchemastery(schema)) {
    try {
      return { ok: true, value: schema(value) }
    } catch (error) {
      if (!isValidationError(error)) return { ok: false, failures: [{ message: error instanceof Error ? error.message : String(error), path: [], code: codeOf(error) }] }
      return { ok: false, failures: [{ ...flatten({ message: error.message, path: error.options?.path ?? [] }), code: codeOf(error) }] }
    }
  }
  let result: SchemaResult
  try {
    result = await schema['~standard'].validate(value)
  } catch (error) {
    return { ok: false, failures: [{ message: error instanceof Error ? error.message : String(error), path: [], code: codeOf(error) }] }
  }
  if (!result.issues) return { ok: true, value: result.value }
  return { ok: false, failures: result.issues.map(flatten) }
}

/** A schemastery schema: a callable Standard Schema whose vendor is `schemastery`. */
function isSchemastery(schema: StandardSchemaLike): schema is StandardSchemaLike & ((value: unknown) => unknown) {
  return typeof schema === 'function' && (schema['~standard'] as { vendor?: unknown }).vendor === 'schemastery'
}

/** A schemastery `ValidationError` (branded by a symbol; checked by name and shape, so any copy of schemastery counts). */
function isValidationError(error: unknown): error is Error & { options?: { path?: SchemaIssue['path'] } } {
  return error instanceof Error && error.name === 'ValidationError' && typeof (error as { options?: unknown }).options === 'object'
}

function flatten(issue: SchemaIssue): ValidationFailure {
  const path = (issue.path ?? []).map((segment) => {
    const key = typeof segment === 'object' && segment !== null ? segment.key : segment
    return typeof key === 'number' ? key : String(key)
  })
  // schemastery writes the path into its messages (`$.toolOrder[0] expected ...`); others do not.
  const message = path.length && !issue.message.startsWith('$') ? `$${path.length && typeof path[0] === 'number' ? '' : '.'}${formatKeyPath(path)} ${issue.message}` : issue.message
  return { message, path, code: codeOf(issue) }
}
