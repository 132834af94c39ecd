/**
 * The `bash` tool as the model sees it: description, JSON Schema parameters and guidance, built from the
 * limits the deployment's executor enforces. Pure and Cordis-free.
 * @module
 */

/** The tool's model-facing name. */
export const BASH_TOOL = 'bash'

/** A JSON Schema `pattern` for absolute paths: POSIX (`/srv/app`) or Windows (`C:\\work`). */
export const ABSOLUTE_PATH = '^(/|[A-Za-z]:[\\\\/])'

/** The executor limits the schema and guidance state (set them to what your executor enforces). */
export interface ShellLimits {
  /** Timeout applied when the call passes no `timeout_ms`, in milliseconds. */
  defaultTimeoutMs: number
  /** The largest `timeout_ms` a call may ask for, in milliseconds. */
  maxTimeoutMs: number
  /** Output beyond this many bytes is truncated before it reaches the model. */
  maxOutputBytes: number
}

/** The limits used when the config sets none: 2 minutes, at most 10 minutes, 30000 bytes of output. */
export const DEFAULT_LIMITS: Readonly<ShellLimits> = Object.freeze({
  defaultTimeoutMs: 120_000,
  maxTimeoutMs: 600_000,
  maxOutputBytes: 30_000,
})

/** The tool description sent in the request's `tools` array. */
export function bashDescription(limits: ShellLimits): string {
  return 'Run a bash command and return its exit code and its combined stdout and stderr. Every call starts a '
    + 'fresh shell in the working folder; `cd` and exported variables do not carry over to the next call. '
    + `Commands time out after ${formatMs(limits.defaultTimeoutMs)} unless \`timeout_ms\` says otherwise.`
}

/** JSON Schema of the arguments (top-level object, no extra properties). */
export function bashParameters(limits: ShellLimits): Record<string, unknown> {
  return {
    type: 'object',
    properties: {
      command: {
        type: 'string',
        minLength: 1,
        description: 'The command line to run, for example `npm test -- --grep parser`. Quote arguments that contain spaces or shell characters.',
      },
      timeout_ms: {
        type: 'integer',
        minimum: 1000,
        maximum: limits.maxTimeoutMs,
        description: `Kill the command after this many milliseconds. Default ${limits.defaultTimeoutMs}, at most ${limits.maxTimeoutMs}.`,
      },
      workdir: {
        type: 'string',
        pattern: ABSOLUTE_PATH,
        description: 'Absolute path of the folder to run in. Default: the working folder.',
      },
      description: {
        type: 'string',
        maxLength: 120,
        description: 'A few words telling the user what the command is for, for example "Run the parser tests".',
      },
    },
    required: ['command'],
    additionalProperties: false,
  }
}

/** The guidance section `tool:bash`: how to call the tool well. Emitted verbatim (no interpolation). */
export function bashGuidance(limits: ShellLimits): string {
  return [
    '## bash',
    '',
    'Runs one shell command per call and returns its exit code and output.',
    '',
    '- Each call starts a fresh shell in the working folder. Pass `workdir` (an absolute path) rather than beginning with `cd`, and chain steps that depend on each other in one command with `&&`.',
    '- When dedicated file tools are offered, use them for file work: read files with read, not `cat`, `head` or `tail`; find files with glob and search contents with grep, not `find`, `ls -R` or shell `grep`; change files with edit or write, not `sed -i`, `echo >` or heredocs. They return exact content and leave changes the user can review. Keep bash for what needs a shell: builds, tests, package managers, git, running programs.',
    '- Quote every argument that may contain spaces or shell characters (`"docs/release notes.md"`). Use single quotes for literal text such as regular expressions, double quotes where a variable must expand.',
    `- A command is killed after \`timeout_ms\` (default ${limits.defaultTimeoutMs} ms, at most ${limits.maxTimeoutMs} ms). Raise it for long builds and test runs. Never start anything that waits for input or runs forever: no editors or pagers (\`git --no-pager\`, \`--yes\`, \`CI=1\`), no servers or watch modes in the foreground.`,
    `- Output beyond ${limits.maxOutputBytes} bytes is truncated. Keep noisy commands short yourself: \`| tail -n 40\`, a quiet flag, or a single test instead of the whole suite.`,
    '- Check the exit code. Non-zero means the command failed: quote the error lines that matter, fix the cause, and do not repeat an unchanged command hoping for a different result.',
    '- Do not run destructive or irreversible commands (`rm -rf`, `git reset --hard`, `git push --force`, dropping data) unless the user asked for exactly that.',
    '- Fill in `description` with a few words so the user can follow what you are doing.',
  ].join('\n')
}

function formatMs(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000} ${ms === 60_000 ? 'minute' : 'minutes'}`
  if (ms % 1000 === 0) return `${ms / 1000} ${ms === 1000 ? 'second' : 'seconds'}`
  return `${ms} ms`
}
