/**
 * `dsh-prompt render <deployment.yml> [--agent id] [--step-input text] [--request [--format f]]`: the
 * system prompt, the runtime-context snapshot and the tools exactly as the target's next request carries
 * them; with `--request`, the whole body in one wire format (`openai-chat` unless `--format` says).
 * @module
 */
import { WIRE_FORMATS, type Agent, type WireFormat } from 'dsh-agent'
import type { RenderedPart } from 'dsh-system-prompt'
import { bootDeployment, type BootedDeployment as Booted } from 'dsh-boot'
import { formatNeedsRequest, requestNeedsAgent, unknownFormat } from '../errors.js'
import { bootOptionsOf, type CommonOptions } from '../options.js'
import type { Output } from '../output.js'
import { byteLength, formatCount, plural } from '../table.js'
import { describeTarget, pickTarget, renderFailure, snapshotAbsence, viewOf, type PromptView } from '../view.js'
import { ownersOf } from '../owners.js'
import { codeOf } from '../codes.js'
import { bounded } from '../deadline.js'

/** Options of `render`. */
export interface RenderOptions extends CommonOptions {
  agent?: string
  stepInput?: string
  request?: boolean
  /** The wire format of the `--request` body. */
  format?: string
}

/** Runs `render`; resolves to the exit code (failures are thrown and reported by the caller). */
export async function renderCommand(file: string, options: RenderOptions, output: Output): Promise<number> {
  if (options.format !== undefined && !options.request) throw formatNeedsRequest()
  if (options.format !== undefined && !(WIRE_FORMATS as readonly string[]).includes(options.format)) throw unknownFormat(options.format, WIRE_FORMATS)
  const booted = await bootDeployment(file, bootOptionsOf(options, output))
  try {
    const target = pickTarget(booted, options.agent)
    if (options.request && !target.agent) throw requestNeedsAgent(booted.deployment.displayFile)
    if (options.request) {
      output.line(JSON.stringify(await requestOf(booted, target.agent!, target.label, options.stepInput, (options.format ?? 'openai-chat') as WireFormat), null, 2))
      return 0
    }
    const view = await viewOf(booted, target, options.stepInput)
    if (options.json) output.json(renderJson(booted, view, options.stepInput))
    else printRender(output, booted, view, options.stepInput)
    return 0
  } finally {
    await booted.dispose()
  }
}

/** The agent's next request body in `format`: one step, as the agent loop would run it. */
async function requestOf(booted: Booted, agent: Agent, label: string, input: string | undefined, format: WireFormat): Promise<unknown> {
  try {
    return (await bounded(booted, label, agent, (signal) => agent.stepDetailed(input, { format, signal }))).request
  } catch (error) {
    if (codeOf(error) === 'CLI_ASSEMBLY_TIMEOUT') throw error
    throw renderFailure(label, error)
  }
}

function printRender(output: Output, booted: Booted, view: PromptView, input: string | undefined): void {
  const c = output.colors
  const heading = (text: string) => output.line(c.bold(c.cyan(`== ${text} ==`)))
  output.line(c.bold(`# ${booted.deployment.displayFile}: ${describeTarget(view.target)}`))
  output.line()
  heading(`system prompt: ${plural(view.sections.length, 'section')}, ${formatCount(byteLength(view.system))} bytes`)
  output.line(view.system || c.dim('(empty: the prompt renders no text, so the request carries no system message)'))
  if (input !== undefined) {
    output.line()
    heading(`user input: ${formatCount(byteLength(input))} bytes`)
    output.line(input)
  }
  output.line()
  heading(`runtime context: ${plural(view.contexts.length, 'context')}, ${formatCount(byteLength(view.snapshot))} bytes`)
  output.line(view.snapshot || c.dim(snapshotAbsence(booted, view.target)))
  output.line()
  heading(`tools: ${plural(view.tools.length, 'tool')}, ${formatCount(view.tools.length ? byteLength(JSON.stringify(view.tools)) : 0)} bytes of JSON`)
  // One tool per line, each exactly the JSON the request carries for it.
  output.line(view.tools.length ? `[\n${view.tools.map((tool) => JSON.stringify(tool)).join(',\n')}\n]` : c.dim('(none: the request carries no tools field)'))
}

function renderJson(booted: Booted, view: PromptView, input: string | undefined) {
  const agent = view.target.agent
  const part = (p: RenderedPart) => ({
    name: p.name, owner: ownersOf(booted).plugin(p.entry.owner), layer: ownersOf(booted).layer(p.entry.scope), bytes: byteLength(p.text),
  })
  return {
    ok: true,
    command: 'render',
    file: booted.deployment.displayFile,
    target: agent
      ? { agent: agent.id, model: agent.model, provider: agent.provider ?? null, cwd: agent.cwd ?? null, preset: agent.preset ?? null, parent: agent.parent?.id ?? null }
      : { agent: null },
    system: view.system,
    sections: view.sections.map(part),
    input: input ?? null,
    snapshot: view.snapshot,
    contexts: view.contexts.map(part),
    tools: view.tools,
    request: view.request ?? null,
  }
}
