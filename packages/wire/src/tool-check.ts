/**
 * `toolProblems`: a tool set checked against the tool rules of one wire format, several, or every
 * registered one (each format module carries its rules: `tool-rules.ts`). Nothing is thrown: each
 * problem is a coded error value naming the format, the tool and the rule, for `dsh-prompt check`.
 * @module
 */
import { wireFormat, wireFormatNames, type WireFormat } from './format.js'
import type { WireTool } from './record.js'
import { problemsUnder, type ToolProblem } from './tool-rules.js'

/** Every problem of `tools` under `formats` (`'all'`: every registered format), format by format. */
export function toolProblems(formats: WireFormat | readonly WireFormat[] | 'all', tools: readonly WireTool[]): ToolProblem[] {
  const list = formats === 'all' ? wireFormatNames() : typeof formats === 'string' ? [formats] : formats
  return list.flatMap((format) => problemsUnder(format, wireFormat(format).toolRules, tools))
}
