import type { Context } from 'cordis'
import { renderPrompt } from 'dsh-system-prompt'
import { Writable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { displayPath } from '../src/source.js'

// The helpers every package shares (bootApp, pluginContext, rejection) come from `dsh-testing`; these
// locate the loader's fixtures and capture what the logger bridge writes.

/** The absolute path of a fixture file. */
export function fixture(name: string): string {
  return fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url))
}

/** A fixture file as messages show it (relative to the working directory when inside it). */
export function shown(name: string): string {
  return displayPath(fixture(name))
}

/** The fixtures folder and the loader package folder, as "unknown plugin" messages show them. */
export const FIXTURES_SHOWN = displayPath(fileURLToPath(new URL('./fixtures', import.meta.url)))
export const LOADER_SHOWN = displayPath(fileURLToPath(new URL('..', import.meta.url)))

/** The repository root (where `.mocharc.yml` and `node_modules` live). */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url))

/** A writable stream that keeps what is written, as text. */
export class Capture extends Writable {
  text = ''
  writes = 0
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.text += chunk.toString()
    this.writes++
    callback()
  }

  /** The lines written so far, without the trailing empty one. */
  get lines(): string[] {
    return this.text.split('\n').filter(Boolean)
  }
}

/** Renders the system prompt once through `ctx`, from a child fiber that injects `systemPrompt` (then disposed). */
export async function renderOnce(ctx: Context): Promise<string> {
  let text = ''
  const fiber = ctx.inject(['systemPrompt'], async (inner) => {
    text = renderPrompt(await inner.systemPrompt.assemble())
  })
  await fiber
  await fiber.dispose()
  return text
}
