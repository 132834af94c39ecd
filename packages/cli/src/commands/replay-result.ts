/**
 * What `replay` returns and prints (R-CLI-7): the report of each request and of the whole replay, the
 * `--json` document. Types only, so the command (`replay.ts`) and its text report (`replay-print.ts`)
 * both read them without importing each other.
 * @module
 */
import type { PromptChangePolicy, WireFormat } from 'dsh-agent'
import type { CacheReport, ToolChange } from 'dsh-wire'
import type { ReplayEpoch, ReplayFork } from '../replay-session.js'

/**
 * The report of one request of a replay: the `--json` keys (`turn`, `requestBytes`, `reusableBytes`,
 * `reusableTokens`, `predictedCachedTokens`, `breaks`), then what else the step measured (`limit`,
 * `requestTokens`, `provider`, `tokenizer`: the fields of `dsh-wire`'s `CacheReport`), then the script's.
 */
export interface ReplayTurn extends Pick<CacheReport,
  'turn' | 'requestBytes' | 'reusableBytes' | 'reusableTokens' | 'predictedCachedTokens' | 'breaks' | 'limit' | 'requestTokens' | 'provider' | 'tokenizer'> {
  /** The script turn that sent the request: its index in `turns:` and its line. */
  item: number
  line: number
  /** What the script changed since the previous request, in order (`change dsh-system-prompt`, `clock +1d`). */
  changes: string[]
  /**
   * A fork's request (`fork:` in the script): its kind. Measured against the agent's latest request and
   * left out of the agent's figures, so the next request is compared with that latest request, not this one.
   */
  side?: { kind: string }
  /** A fork's request: its kind and its parity with the agent's latest request (`Fork.parity()`, owners as row ids). */
  fork?: ReplayFork
  /** A sub-agent's first request (`subagent:` in the script; `side` is `{ kind: 'subagent' }`): its id and start; its report is measured against the parent's latest request. */
  subagent?: { id: string; start: string }
  /** The first request of an epoch (after a `compact:` turn): the re-anchor chosen, both offers priced, predicted and reported cost. */
  epoch?: ReplayEpoch
  /** The tool changes the request's report names (owners as row ids), when there are any. */
  toolChanges?: ToolChange[]
  /** With `send`: the cached tokens the provider reported (`null`: its usage has no such figure). */
  reportedCachedTokens?: number | null
  /** With `send`, when the reported cached tokens differ from the prediction: the likely reason (the provider family's words). */
  mismatch?: string
}

/** What a replay produced: the `--json` document (`format`, `turns`) and the facts a picture shows. */
export interface ReplayResult {
  format: WireFormat
  turns: ReplayTurn[]
  /** The deployment file and the script, as messages show them. */
  file: string
  script: string
  /** The agent played, and its policy. */
  agent: string
  policy: PromptChangePolicy
  /** With `options.ledger`: the conversation as ledger text (JSON Lines), as `exportLedger(agent)` writes it. */
  ledger?: string
}
