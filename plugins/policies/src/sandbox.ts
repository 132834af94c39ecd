/**
 * The `sandbox:policy` runtime context: what the sandbox lets the model do, from the deployment's config.
 * Pure and Cordis-free.
 * @module
 */

/** The sandbox modes a deployment can state. */
export const SANDBOX_MODES = ['read-only', 'workspace-write', 'full-access'] as const

/** One of {@link SANDBOX_MODES}. */
export type SandboxMode = (typeof SANDBOX_MODES)[number]

/** What the sandbox context says. */
export interface SandboxFacts {
  mode: SandboxMode
  /** With `workspace-write`: where writes are allowed (empty: the working folder). */
  writableRoots: readonly string[]
  /** Whether commands may reach the network. */
  network: boolean
}

/** The sandbox context's text: the mode with what it allows, then the network line. */
export function sandboxText(facts: SandboxFacts): string {
  return modeLine(facts) + '\n' + networkLine(facts.network)
}

function modeLine({ mode, writableRoots }: SandboxFacts): string {
  switch (mode) {
    case 'read-only':
      return 'Sandbox: read-only. You can read files and run commands that only look; anything that writes to disk is refused.'
    case 'workspace-write':
      return `Sandbox: workspace-write. You can read files anywhere but write only inside ${writableRoots.length ? list(writableRoots.map((root) => '`' + root + '`')) : 'the working folder'}.`
    case 'full-access':
      return 'Sandbox: full-access. Nothing limits what you read, write or run, so every change is real at once; take particular care with anything you cannot undo.'
  }
}

function networkLine(network: boolean): string {
  return network
    ? 'Network: on. Commands may reach the network.'
    : 'Network: off. Commands that need the network (installing packages, downloads, git fetch or push) will fail; do not retry them, say what you need instead.'
}

function list(items: readonly string[]): string {
  return items.length === 1 ? items[0] : items.slice(0, -1).join(', ') + ' and ' + items[items.length - 1]
}
