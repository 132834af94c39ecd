/**
 * Every error message of `dsh-plugin-policies`, made in one place so tests and docs quote the same strings.
 * @module
 */

/** A policy text was set to an empty or blank string. */
export const emptyText = (part: string) =>
  `${part}.text must not be empty (set ${part}.enabled: false to leave it out)`

/** `sandbox.writableRoots` was given for a mode that has no writable roots. */
export const rootsNeedWorkspaceWrite = (mode: string | undefined) =>
  `sandbox.writableRoots only applies when sandbox.mode is "workspace-write" (${mode === undefined ? 'sandbox.mode is not set' : `it is ${JSON.stringify(mode)}`})`

/** A writable root is not an absolute path. */
export const relativeRoot = (index: number, root: string) =>
  `sandbox.writableRoots[${index}] ${JSON.stringify(root)} is not an absolute path (write /srv/app, C:\\work, or a variable such as {{cwd}})`

/** A writable root is listed twice. */
export const repeatedRoot = (root: string) =>
  `sandbox.writableRoots lists ${JSON.stringify(root)} more than once`
