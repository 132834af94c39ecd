/**
 * A fresh root context with the dsh services a test asks for, and a host plugin to register through.
 * @module
 */
import { Context } from 'cordis'
import { Agents, type Config as AgentsConfig } from 'dsh-agent'
import { SystemPrompt, type Config as PromptConfig } from 'dsh-system-prompt'
import { ToolRegistry } from 'dsh-tools'
import { serviceNeedsPrompt } from './errors.js'
import { pluginContext } from './plugin-context.js'

/** What {@link bootApp} loads. A service is loaded only when its option is given and not `false`. */
export interface BootOptions {
  /** Loads `systemPrompt` with this config (`true`: its defaults, the identity line included). */
  systemPrompt?: Partial<PromptConfig> | boolean
  /** Loads the `tools` registry (needs `systemPrompt`). */
  tools?: boolean
  /** Loads `agents` with this config (`true`: its defaults); needs `systemPrompt`. */
  agents?: Partial<AgentsConfig> | boolean
  /** The host plugin: its name (default `host`) and what it injects (default: every service loaded). */
  host?: { name?: string; inject?: readonly string[] }
}

/** A booted app. */
export interface BootedApp {
  /** The root context, with the services loaded. */
  app: Context
  /** An active plugin context under `app` (agents and presets are created through it). */
  host: Context
}

/** Turns an option into the config to load a service with, or `undefined` when it is not loaded. */
function configOf<T>(option: Partial<T> | boolean | undefined): Partial<T> | undefined {
  if (option === undefined || option === false) return undefined
  return option === true ? {} : option
}

/**
 * Boots a fresh `new Context()`: `systemPrompt`, `tools` and `agents` as `options` asks, in that order,
 * then a host plugin injecting them. Throws before loading anything when `tools` or `agents` is asked
 * for without `systemPrompt`.
 */
export async function bootApp(options: BootOptions = {}): Promise<BootedApp> {
  const prompt = configOf(options.systemPrompt)
  const agents = configOf(options.agents)
  const tools = options.tools === true
  if (prompt === undefined && tools) throw serviceNeedsPrompt('tools')
  if (prompt === undefined && agents !== undefined) throw serviceNeedsPrompt('agents')
  const app = new Context()
  const loaded: string[] = []
  if (prompt !== undefined) {
    await app.plugin(SystemPrompt, prompt)
    loaded.push('systemPrompt')
  }
  if (tools) {
    await app.plugin(ToolRegistry)
    loaded.push('tools')
  }
  if (agents !== undefined) {
    await app.plugin(Agents, agents)
    loaded.push('agents')
  }
  const host = await pluginContext(app, options.host?.name ?? 'host', options.host?.inject ?? loaded)
  return { app, host }
}
