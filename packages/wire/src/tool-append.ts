/**
 * A provider's documented append path for a tool that appears mid-conversation (issue 21, item 4;
 * R-TOOL-13): the tool is offered from a point in the conversation by an element appended there, so the
 * declared tools and every earlier element keep their bytes and the cached prefix holds. A format module
 * declares its path (`WireFormatModule.toolAppend`), or says why it has none; `toolAppendChoice` is the
 * one rule that decides, per request, whether an added tool takes the path or is declared at once (the
 * fallback, a break the report predicts). Generic: no provider is named here. Pure and Cordis-free.
 * @module
 */
import { promptUpdateLowering, type PromptUpdateCapability, type PromptUpdateOverrides } from './prompt-updates.js'

/** A format's append path for added tools, with the document it follows. */
export interface ToolAppendPath {
  /** What is appended, in words (`a system message with tool_addition blocks`). */
  readonly name: string
  /** The provider document (and section) that defines it. */
  readonly source: string
  /**
   * The HTTP header the provider needs on a request that carries the path's element, and on every later
   * request of the conversation (a beta header). The step's `headers` carries it.
   */
  readonly header?: { readonly name: string; readonly value: string }
  /**
   * Whether the path rides on a mid-conversation system message: then it is open only for the models the
   * format's prompt-update table lists (and the deployment's `promptUpdates` overrides).
   */
  readonly systemMessage: boolean
  /**
   * Whether the path needs at least one tool in the request's tool list: a provider that renders tools
   * added in messages after the declared ones may move the start of the prompt when there are none.
   */
  readonly needsDeclaredTool: boolean
}

/** What a module says about added tools: its path, or why it has none (`undefined`: it says nothing). */
export type ToolAppendCapability = ToolAppendPath | { readonly none: string }

/** An added tool's way into one request: the append path (`via`), or declared at once with the reason (`fallback`). */
export type ToolAppendChoice =
  | { readonly via: string; readonly header?: { readonly name: string; readonly value: string } }
  | { readonly fallback: string }

/** What decides the choice for one request. */
export interface ToolAppendQuestion {
  readonly model: string
  /** Whether the deployment turned the append paths on (`wire.toolAdditions`): a beta needs the harness to send its header. */
  readonly enabled: boolean
  /** How many tools the request declares before any is added. */
  readonly declaredTools: number
  readonly promptUpdates?: PromptUpdateOverrides
}

/**
 * The way an added tool enters a request of `module`: its append path when the module has one, the
 * deployment turned it on, the model takes it and the request declares a tool; else the fallback,
 * naming which condition failed (a report shows it as the change's `fallback`).
 */
export function toolAppendChoice(
  module: { readonly name: string; readonly toolAppend?: ToolAppendCapability; readonly promptUpdates?: PromptUpdateCapability }, question: ToolAppendQuestion,
): ToolAppendChoice {
  const path = module.toolAppend
  if (path === undefined) return { fallback: `${module.name} has no documented append path for an added tool` }
  if ('none' in path) return { fallback: `${module.name} has no append path for an added tool (${path.none})` }
  if (!question.enabled) return { fallback: `${module.name}'s append path (${path.name}) is off for this agent (wire.toolAdditions)` }
  if (path.systemMessage && promptUpdateLowering(module, question.model, question.promptUpdates) !== 'system-message') {
    return { fallback: `${question.model} takes no mid-conversation system message, which ${module.name}'s append path needs` }
  }
  if (path.needsDeclaredTool && question.declaredTools === 0) {
    return { fallback: `${module.name}'s append path needs at least one declared tool (the first tool added to an empty list moves the start of the prompt)` }
  }
  return { via: `${path.name} (${path.source})`, ...(path.header === undefined ? {} : { header: path.header }) }
}
