/**
 * The `approval:policy` runtime context: when the user approves what the model runs, from the
 * deployment's config. Pure and Cordis-free.
 * @module
 */

/** The approval modes a deployment can state. */
export const APPROVAL_MODES = ['untrusted', 'on-request', 'on-failure', 'never'] as const

/** One of {@link APPROVAL_MODES}. */
export type ApprovalMode = (typeof APPROVAL_MODES)[number]

/** What each approval mode means for the model, one sentence each. */
export const APPROVAL_TEXTS: Readonly<Record<ApprovalMode, string>> = Object.freeze({
  'untrusted': 'Approval: untrusted. Only commands known to be read-only run straight away; every other command waits until the user approves it, so prefer looking before changing and explain what you want to run.',
  'on-request': 'Approval: on-request. Commands run inside the sandbox without asking; when one needs more than the sandbox allows, such as writing elsewhere or using the network, request approval for that command and say in one sentence why it is needed.',
  'on-failure': 'Approval: on-failure. Commands run inside the sandbox without asking; if the sandbox blocks one, the user is asked whether to run it again without restrictions, so wait for that answer instead of working around the block.',
  'never': 'Approval: never. Nobody is asked to approve anything and nothing runs outside the sandbox; when something is blocked, find another way within it or report what is blocked, and do not ask the user to run it for you.',
})

/** The approval context's text for `mode`. */
export function approvalText(mode: ApprovalMode): string {
  return APPROVAL_TEXTS[mode]
}
