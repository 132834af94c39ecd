import { Writable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { Context } from 'cordis'
import { displayPath } from '../src/source.js'

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

/** A fresh root context with a host plugin: the loader mounts entries under the host's context. */
export async function hostContext(): Promise<{ app: Context; host: Context }> {
  const app = new Context()
  let host: Context | undefined
  await app.plugin({ name: 'host', apply(ctx: Context) { host = ctx } })
  return { app, host: host! }
}

/** Runs `fn` and returns what it rejected with; fails when it resolves. */
export async function rejection(fn: () => Promise<unknown>): Promise<any> {
  try {
    await fn()
  } catch (error) {
    return error
  }
  throw new Error('expected a rejection, but it resolved')
}
