/**
 * Every message `dsh-testing` fails a test with, made in one place. The helpers throw plain `Error`s
 * (no assertion library), so mocha reports them as failures whatever the test asserts with. Each
 * carries a stable `code` (`TESTING_*`) and the `details` it is about.
 * @module
 */

/** Shows a value in a message: JSON where possible, cut to 200 characters. */
function show(value: unknown): string {
  if (typeof value === 'function') return `a function ${value.name || '(anonymous)'}`
  let text: string | undefined
  try {
    text = JSON.stringify(value)
  } catch {
    text = undefined
  }
  return (text ?? String(value)).slice(0, 200)
}

/** A helper's plugin was loaded but never applied (a service it injects is missing). */
export const pluginNotApplied = (name: string, inject: readonly string[]) =>
  Object.assign(new Error(`plugin "${name}" was not applied: is every service it injects loaded? (inject: ${inject.length ? inject.join(', ') : '(none)'})`), {
    code: 'TESTING_PLUGIN_NOT_APPLIED' as const, details: { name, inject },
  })

/** `bootApp()` was asked for a service without `systemPrompt`, which every other service injects. */
export const serviceNeedsPrompt = (service: string) =>
  Object.assign(new Error(`bootApp(): "${service}" injects systemPrompt, so it needs the systemPrompt option as well`), {
    code: 'TESTING_SERVICE_NEEDS_PROMPT' as const, details: { service },
  })

/** `thrown(fn)`: `fn` returned instead of throwing. */
export const expectedThrow = (value: unknown) =>
  Object.assign(new Error(value instanceof Promise
    ? 'expected the call to throw, but it returned a promise (use rejection() for async calls)'
    : `expected the call to throw, but it returned ${show(value)}`), {
    code: 'TESTING_EXPECTED_THROW' as const, details: { returned: value },
  })

/** `rejection(subject)`: the promise resolved. */
export const expectedRejection = (value: unknown) =>
  Object.assign(new Error(`expected a rejection, but it resolved to ${show(value)}`), {
    code: 'TESTING_EXPECTED_REJECTION' as const, details: { resolved: value },
  })

/** The thrown or rejected value is not an instance of the expected class. */
export const wrongErrorType = (expected: string, value: unknown) =>
  Object.assign(new Error(`expected ${expected === 'Error' ? 'an Error' : `a ${expected}`}, but got ${value instanceof Error ? `${value.name}: ${value.message}` : show(value)}`), {
    code: 'TESTING_WRONG_ERROR_TYPE' as const, details: { expected, received: value },
  })

/** `longestEncoded()`: code under test handed gpt-tokenizer's encoder more text at once than the bound. */
export const encoderHandedTooMuch = (length: number, bound: number) =>
  Object.assign(new Error(`the encoder was handed ${length} characters at once (the bound is ${bound})`), {
    code: 'TESTING_ENCODER_HANDED_TOO_MUCH' as const, details: { length, bound },
  })

/** A GGUF tensor whose data does not have the elements its shape says. */
export const tensorShape = (name: string, shape: readonly number[], elements: number) =>
  Object.assign(new Error(`writeGguf(): tensor "${name}" has shape ${shape.join('x')} but ${elements} elements of data`), {
    code: 'TESTING_TENSOR_SHAPE' as const, details: { name, shape, elements },
  })
