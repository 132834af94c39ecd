/**
 * Every error message of `dsh-plugin-policies`, made in one place so tests and docs quote the same strings.
 * Each is a config problem: a schemastery `ValidationError` with a stable `code` (`POLICIES_*`) and the
 * `details` it is about, thrown by the schema as it is; a deployment's problem keeps its code (the
 * loader calls a schemastery schema itself, as the Standard Schema adapter drops the code).
 * @module
 */
import z from 'schemastery'

/** A policy text was set to an empty or blank string. */
export const emptyText = (part: string) =>
  Object.assign(new z.ValidationError(`${part}.text must not be empty (set ${part}.enabled: false to leave it out)`, {}), {
    code: 'POLICIES_EMPTY_TEXT' as const, details: { part },
  })

/** `sandbox.writableRoots` was given for a mode that has no writable roots. */
export const rootsNeedWorkspaceWrite = (mode: string | undefined) =>
  Object.assign(new z.ValidationError(`sandbox.writableRoots only applies when sandbox.mode is "workspace-write" (${mode === undefined ? 'sandbox.mode is not set' : `it is ${JSON.stringify(mode)}`})`, {}), {
    code: 'POLICIES_ROOTS_NEED_WORKSPACE_WRITE' as const, details: { mode },
  })

/** A writable root is not an absolute path. */
export const relativeRoot = (index: number, root: string) =>
  Object.assign(new z.ValidationError(`sandbox.writableRoots[${index}] ${JSON.stringify(root)} is not an absolute path (write /srv/app, C:\\work, or a variable such as {{cwd}})`, {}), {
    code: 'POLICIES_RELATIVE_ROOT' as const, details: { index, root },
  })

/** A writable root is listed twice. */
export const repeatedRoot = (root: string) =>
  Object.assign(new z.ValidationError(`sandbox.writableRoots lists ${JSON.stringify(root)} more than once`, {}), {
    code: 'POLICIES_REPEATED_ROOT' as const, details: { root },
  })
