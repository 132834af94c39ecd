/**
 * `dsh-testing`: the test helpers the workspace's packages and plugins share (private, never published).
 * Real Cordis contexts and plugins, no mocks, and no assertion library: a helper that cannot do what it
 * is asked throws a plain `Error`, which fails the test.
 * @module
 */
export { bootApp, type BootOptions, type BootedApp } from './boot-app.js'
export { loadPlugin, pluginContext, type LoadedPlugin } from './plugin-context.js'
export { thrown, asError, type ErrorClass } from './thrown.js'
export { rejection } from './rejection.js'
export { recordChanges, describeChanges, type ChangeEvents } from './changes.js'
export { captureLogs, type CapturedLog } from './logs.js'
export { tick } from './tick.js'
export { promptText, snapshotText, ownSections, PERSONA_PIECES } from './rendered.js'
export { scope } from './scope.js'
export { tool, objectSchema } from './tool.js'
export * as TestingErrors from './errors.js'
export { random } from './random.js'
export { SOAK } from './soak.js'
export { longestEncoded } from './encoder-spy.js'
export { tinyModel, writeTinyModel, TINY_END_TOKEN, type TinyModelOptions } from './gguf/tiny-model.js'
export { writeGguf, type GgufTensor, type GgufValue } from './gguf/gguf-writer.js'
