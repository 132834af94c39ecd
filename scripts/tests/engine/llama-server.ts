/**
 * The engine test tier's server: llama.cpp's `llama-server`, built once per machine by
 * `scripts/engine/build-llama-server.sh` into a cache outside the checkout, started on 127.0.0.1 on a
 * free port with one slot and the host-memory prompt cache off (so the slot's cache is the previous
 * request's prompt: the llama.cpp family's L4), and stopped by its pid.
 * @module
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'

export const BUILD_SCRIPT = fileURLToPath(new URL('../../engine/build-llama-server.sh', import.meta.url))
const SHOWN_SCRIPT = 'scripts/engine/build-llama-server.sh'

/** The cached binary's path, or a failure that names the build script. */
export function llamaServerBinary(): string {
  const path = execFileSync('bash', [BUILD_SCRIPT, '--path'], { encoding: 'utf8' }).trim()
  if (!existsSync(path)) {
    throw new Error(`llama-server is not built on this machine (looked for ${path}): run 'bash ${SHOWN_SCRIPT}' once (about 10 minutes on two cores), or the README's test command, 'bash scripts/dsh.sh test', which runs it`)
  }
  return path
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))))
    })
  })
}

/** A running server. */
export interface LlamaServer {
  readonly url: string
  readonly pid: number
  /** Posts `body` to `path`; resolves to the parsed JSON answer, or throws with the server's words. */
  post(path: string, body: unknown): Promise<Record<string, unknown>>
  stop(): Promise<void>
}

/** Starts `llama-server` on `model` with a context of `context` tokens; resolves once `/health` answers. */
export async function startLlamaServer(model: string, context: number): Promise<LlamaServer> {
  const binary = llamaServerBinary()
  const port = await freePort()
  const args = ['-m', model, '-c', String(context), '-np', '1', '--cache-ram', '0', '--jinja', '--no-webui', '--host', '127.0.0.1', '--port', String(port), '-t', '2', '--no-warmup']
  const child: ChildProcess = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] })
  let log = ''
  child.stderr!.on('data', (chunk: Buffer) => { log = (log + chunk.toString('utf8')).slice(-20_000) })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const url = `http://127.0.0.1:${port}`
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      process.kill(child.pid!, 'SIGTERM')
      await exited
    }
  }
  // Bounded only to catch a server that never comes up (a hang), not to time it.
  for (let attempt = 0; ; attempt++) {
    if (child.exitCode !== null) throw new Error(`llama-server exited with ${child.exitCode} before it served:\n${log}`)
    const ready = await fetch(`${url}/health`).then((r) => r.ok, () => false)
    if (ready) break
    if (attempt > 600) { await stop(); throw new Error(`llama-server did not become ready:\n${log}`) }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return {
    url,
    pid: child.pid!,
    async post(path, body) {
      const response = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) })
      const text = await response.text()
      if (!response.ok) throw new Error(`llama-server ${path}: ${response.status} ${text}\n${log.slice(-4000)}`)
      return JSON.parse(text) as Record<string, unknown>
    },
    stop,
  }
}
