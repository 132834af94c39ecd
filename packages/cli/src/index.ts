/**
 * `dsh-prompt`: boots a YAML deployment and renders, explains, diffs and checks what the model will
 * see. The `dsh-prompt` bin runs {@link main}; the functions behind each command (pick a target, view
 * it, explain, compare, check) are exported for tools that want the same data without the command line.
 * They take what `bootDeployment` of `dsh-boot` returns (the CLI boots through it too). Formatting
 * helpers (tables, colours, prefix pieces) are the CLI's own and are not exported.
 * @module
 */
export { main, VERSION } from './program.js'
export type { CliIO } from './program.js'
export { pickTarget, viewOf, describeTarget } from './view.js'
export type { PromptView, Target } from './view.js'
export { explain } from './explanation.js'
export type { Explanation, ExplainedText, ExplainedTool, ExplainedVariable, DroppedText } from './explanation.js'
export { compareSides, PARTS } from './comparison.js'
export type { Comparison, PartDiff, PartName, Side, StreamComparison, StreamSpot } from './comparison.js'
export { explainPage } from './html/explain-page.js'
export type { ExplainPageInput } from './html/explain-page.js'
export { replayPage } from './html/replay-page.js'
export type { ReplayBreak, ReplayPageData, ReplayPageOptions, ReplayTurn as ReplayPageTurn } from './html/replay-page.js'
export { writePage } from './html/page.js'
export { checkTarget } from './checks.js'
export { DEFAULT_ASSEMBLY_TIMEOUT } from './deadline.js'
export type { FindingKind, RawFinding } from './checks.js'
export type { Finding } from './commands/check.js'
export { loadTokenizer, TOKEN_ENCODING } from './tokens.js'
export type { Tokenizer } from './tokens.js'
export { CliError, EXIT } from './errors.js'
export type { CliMessage } from './errors.js'
export { codeOf, detailsOf } from './codes.js'
export { replayDeployment } from './commands/replay.js'
export type { ReplayOptions, ReplayResult, ReplayTurn } from './commands/replay.js'
export { parseReplayScript, readReplayScript } from './replay-script.js'
export type { ReplayScript, ScriptToolCall, ScriptTurn } from './replay-script.js'
export type { ScriptProblem } from './errors.js'
