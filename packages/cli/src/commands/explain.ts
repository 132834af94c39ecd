/**
 * `dsh-prompt explain <deployment.yml> [--agent id] [--format f] [--html out.html]`: where every
 * section, context, tool and variable of one request comes from, and what each costs; with `--format`,
 * the request's parts in the order that format's provider hashes them, with their byte offsets; with
 * `--html`, the same as one self-contained page.
 * @module
 */
import { bootDeployment } from 'dsh-boot'
import { explain, type DroppedText, type ExplainedText, type Explanation } from '../explanation.js'
import { bootOptionsOf, type CommonOptions } from '../options.js'
import type { Output } from '../output.js'
import { formatCount, plural, renderTable, type Column } from '../table.js'
import { loadTokenizer } from '../tokens.js'
import { describeTarget, pickTarget, viewOf } from '../view.js'
import { terminalSafe } from 'dsh-loader'
import { MAX_PIECE, promptUpdateLowering, toolAppendChoice, wireFormat as wireModule, type PromptUpdateLowering } from 'dsh-wire'
import { explainPage } from '../html/explain-page.js'
import { writePage } from '../html/page.js'
import { streamOf, streamOrder, streamRows, wireFormat, type StreamRow, type WireFormat } from '../stream.js'
import { headLine, headShare, headWarning } from '../head-share.js'
import { toolAppendLine, toolPolicyLine } from '../tool-change-lines.js'

/** Options of `explain`. */
export interface ExplainOptions extends CommonOptions {
  agent?: string
  /** `--format`: list the request's parts in this wire format's hash order. */
  format?: string
  /** `--html`: write the picture to this file. */
  html?: string
}

/** What each lowering of a prompt version appended mid-conversation means, in the text output. */
const PROMPT_UPDATE_WORDS: Record<PromptUpdateLowering, string> = {
  'system-message': 'a mid-conversation system message (native; the cached prefix before it stays)',
  marker: 'a user message that starts with the update marker line (the cached prefix before it stays)',
}

/** The format the page's groups follow without `--format`: the request `explain` measures. */
const DEFAULT_FORMAT: WireFormat = 'openai-chat'

/** Runs `explain`; resolves to the exit code. */
export async function explainCommand(file: string, options: ExplainOptions, output: Output): Promise<number> {
  const format = wireFormat(options.format)
  const [booted, tokenizer] = await Promise.all([bootDeployment(file, bootOptionsOf(options, output)), loadTokenizer()])
  try {
    const target = pickTarget(booted, options.agent)
    const view = await viewOf(booted, target, undefined)
    const explanation = explain(booted, view, tokenizer)
    const stream = format && { order: streamOrder(format), ...measured(streamRows(booted, view, streamOf(booted, view, format))) }
    // How a prompt version appended mid-conversation would be sent to the agent's model in this format.
    const promptUpdate = format && target.agent ? promptUpdateLowering(wireModule(format), target.agent.model, target.agent.wire?.promptUpdates) : undefined
    // How a tool added mid-conversation would enter this agent's next request in this format (R-TOOL-13).
    const toolAppend = format && target.agent ? toolAppendChoice(wireModule(format), {
      model: target.agent.model, enabled: target.agent.wire?.toolAdditions === true, declaredTools: view.tools.length,
      ...(target.agent.wire?.promptUpdates === undefined ? {} : { promptUpdates: target.agent.wire.promptUpdates }),
    }) : undefined
    // The agent's input budget against its model profile, and the warning when the head takes too much of it.
    const budget = target.agent ? headShare(target.agent, view.system, view.tools, tokenizer) : null
    const warning = budget && target.agent ? headWarning(target.agent, budget) : undefined
    const file = booted.deployment.displayFile
    if (options.html !== undefined) {
      const shown = format ?? DEFAULT_FORMAT
      const budgetLine = budget ? { line: headLine(budget), ...(warning ? { warning: warning.message } : {}) } : undefined
      writePage(options.html, explainPage({ file, target: describeTarget(target), format: shown, order: streamOrder(shown), explanation, stream: stream?.parts, budget: budgetLine }))
    }
    if (options.json) {
      output.json({
        ok: true, command: 'explain', file, agent: target.agent?.id ?? null, ...explanation, budget, ...(target.agent ? { toolChange: target.agent.toolChange } : {}),
        ...(warning ? { warnings: [warning] } : {}),
        ...(stream ? { format, stream } : {}), ...(promptUpdate ? { promptUpdate } : {}), ...(toolAppend ? { toolAppend } : {}), ...(options.html !== undefined ? { html: options.html } : {}),
      })
    } else if (options.html !== undefined) {
      output.line(`wrote ${terminalSafe(options.html)}: the picture of ${describeTarget(target)}, ${plural(explanation.sections.length, 'section')}, ${plural(explanation.contexts.length, 'context')}, ${plural(explanation.tools.length, 'tool')} in ${format ?? DEFAULT_FORMAT} order`)
    } else {
      output.line(output.colors.bold(`# ${file}: ${describeTarget(target)}`))
      output.line(`tokens: ${explanation.encoding} (gpt-tokenizer); bytes: UTF-8`)
      if (explanation.estimatedTokens) {
        output.line(`token counts of ${terminalSafe(explanation.estimatedTokens.join(', '))} are estimates: each holds an unbroken run of more than ${MAX_PIECE} characters, counted in pieces`)
      }
      printExplanation(output, explanation)
      if (budget) output.line(headLine(budget))
      if (target.agent) output.line(toolPolicyLine(target.agent.toolChange))
      if (warning) output.line(output.colors.yellow(`warning: ${target.label}: ${warning.message} [${warning.code}]`))
      if (promptUpdate) output.line(`prompt updates (append): ${PROMPT_UPDATE_WORDS[promptUpdate]}`)
      if (toolAppend) output.line(terminalSafe(toolAppendLine(toolAppend)))
      if (stream) printStream(output, format!, stream.parts, stream.bytes)
    }
    return 0
  } finally {
    await booted.dispose()
  }
}

const TEXT_COLUMNS = (kind: string): Column[] => [
  { header: '#', align: 'right' }, { header: 'order', align: 'right' }, { header: kind }, { header: 'owner' }, { header: 'layer' },
  { header: 'bytes', align: 'right' }, { header: 'tokens', align: 'right' }, { header: 'shadows' },
]

function printExplanation(output: Output, x: Explanation): void {
  const c = output.colors
  const title = (text: string) => {
    output.line()
    output.line(c.bold(c.cyan(text)))
  }
  const style = { header: c.dim }
  const textRows = (list: readonly ExplainedText[]) => list.map((t) => [
    String(t.position), t.order === null ? '-' : String(t.order), t.name + (t.dynamic ? ' *' : ''), t.owner + (t.changedBy ? `, ${t.changedBy}` : ''), t.layer, formatCount(t.bytes), formatCount(t.tokens), t.shadows.join('; '),
  ])
  const names = (list: readonly DroppedText[]) => list.map((d) => terminalSafe(`${d.name} (${d.owner}, ${d.layer})`)).join(', ')
  // One line per reason; the "empty" line always shows, the others only when they have entries.
  const dropped = (list: readonly DroppedText[]) => {
    const empty = list.filter((d) => d.reason === 'empty')
    const hidden = list.filter((d) => d.reason === 'tool hidden')
    const complete = list.filter((d) => d.reason === 'complete')
    output.line(`dropped as empty after interpolation: ${empty.length ? names(empty) : '(none)'}`)
    if (hidden.length) output.line(`dropped because their tool is hidden from this agent: ${names(hidden)}`)
    if (complete.length) output.line(`left out by the complete section ${JSON.stringify(x.completeSection)}, which is the whole prompt: ${names(complete)}`)
    const removed = list.filter((d) => d.reason === 'removed')
    if (removed.length) output.line(`removed by a system-prompt/assemble listener: ${removed.map((d) => `${d.name} (${d.owner}, ${d.layer}) removed by ${d.by}`).join(', ')}`)
  }

  title('System prompt')
  if (x.sections.length) output.line(renderTable(TEXT_COLUMNS('section'), textRows(x.sections), style))
  else output.line(c.dim('(no section renders text: the request carries no system message)'))
  dropped(x.droppedSections)
  const { tokens, sectionTokens } = x.totals.system
  output.line(`total: ${plural(x.sections.length, 'section')}, ${formatCount(x.totals.system.bytes)} bytes, ${formatCount(tokens)} tokens`
    + (tokens !== sectionTokens ? ` (counted section by section: ${formatCount(sectionTokens)}; tokens merge across the blank lines between sections)` : ''))

  title(`Runtime context (${x.runtimeContext === 'on' ? 'on: sent as a user message at the tail of the request' : x.runtimeContext})`)
  if (x.contexts.length) output.line(renderTable(TEXT_COLUMNS('context'), textRows(x.contexts), style))
  if (x.contexts.length || x.droppedContexts.length) dropped(x.droppedContexts)
  output.line(`total: ${x.contexts.length ? `heading + ${plural(x.contexts.length, 'context')}` : 'no snapshot'}, ${formatCount(x.totals.snapshot.bytes)} bytes, ${formatCount(x.totals.snapshot.tokens)} tokens`)

  title('Tools')
  if (x.tools.length) {
    output.line(renderTable(
      [{ header: '#', align: 'right' }, { header: 'tool' }, { header: 'owner' }, { header: 'layer' }, { header: 'bytes', align: 'right' }, { header: 'tokens', align: 'right' }],
      x.tools.map((t) => [String(t.position), t.name, t.owner, t.layer, formatCount(t.bytes), formatCount(t.tokens)]), style,
    ))
  } else {
    output.line(c.dim('(no tool is visible: the request carries no tools field)'))
  }
  output.line(`total: ${plural(x.tools.length, 'tool')}, ${formatCount(x.totals.tools.bytes)} bytes of JSON, ${formatCount(x.totals.tools.tokens)} tokens`)

  title('Variables')
  if (x.variables.length) {
    output.line(renderTable(
      [{ header: 'variable' }, { header: 'owner' }, { header: 'layer' }, { header: 'value' }, { header: 'shadows' }],
      x.variables.map((v) => [v.name, v.owner, v.layer, v.value === null ? '(no value)' : JSON.stringify(clip(v.value)), v.shadows.join('; ')]), style,
    ))
  } else {
    output.line(c.dim('(none registered)'))
  }

  output.line()
  output.line(c.bold(`Request total: ${formatCount(x.totals.all.bytes)} bytes, ${formatCount(x.totals.all.tokens)} tokens (${x.encoding}) in system prompt + runtime context + tools`))
  if (x.sections.some((s) => s.dynamic) || x.contexts.some((s) => s.dynamic)) output.line(c.dim('* text computed at each assembly'))
}

/** The rows and the stream's length. */
function measured(parts: StreamRow[]): { bytes: number; parts: StreamRow[] } {
  return { bytes: parts.reduce((sum, part) => sum + part.bytes, 0), parts }
}

const REGION_NAMES: Readonly<Record<string, string>> = { tools: 'tools', system: 'system prompt', messages: 'messages' }

function printStream(output: Output, format: WireFormat, parts: readonly StreamRow[], bytes: number): void {
  const c = output.colors
  output.line()
  output.line(c.bold(c.cyan(`Cache stream (${format}): the model, then ${streamOrder(format).map((region) => REGION_NAMES[region]).join(', then ')}`)))
  output.line(renderTable(
    [{ header: '#', align: 'right' }, { header: 'part' }, { header: 'name' }, { header: 'owner' }, { header: 'layer' }, { header: 'start', align: 'right' }, { header: 'bytes', align: 'right' }],
    parts.map((p) => [String(p.position), p.kind, p.name, p.owner ?? '-', p.layer ?? '-', formatCount(p.start), formatCount(p.bytes)]),
    { header: c.dim },
  ))
  output.line(`total: ${plural(parts.length, 'part')}, ${formatCount(bytes)} bytes of canonical JSON without cache_control; a change in a part re-sends every byte from its start`)
}

function clip(text: string): string {
  return text.length > 48 ? text.slice(0, 47) + '…' : text
}
