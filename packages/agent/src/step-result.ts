/**
 * A step's result (`StepResult`): its request, body and headers made on first read, its report and
 * budget measured on first read (R-CACHE-10), and its other fields as plain data.
 *
 * A class whose accessors sit on its prototype, not an object literal with getters. V8 makes each
 * literal's accessor pair in its old generation, so the getter closures it holds, and everything they
 * capture (the step's build, assembly, rendering and waiting measurement), survive every young
 * collection until the next full one: on the heavy bench workload, 8.3 KB of a step survived young
 * collections, 3.4 to 4.1 KB as a class (153b377: 4.8 KB; bench/README.md, "Seventh round"). The
 * accessors are not own properties: a spread or `Object.keys` of a result leaves them out, as the
 * reference says (R-CACHE-10).
 * @module
 */
import type { PromptAssembly, RenderedPrompt } from 'dsh-system-prompt'
import { requestHeaders, type CacheReport, type RequestBodies, type SessionBuild, type WireFormat } from 'dsh-wire'
import type { ContextBudget } from './budget.js'
import type { StepMeasures } from './deferred-measures.js'
import type { ConversationEntry } from './conversation.js'
import type { Epoch } from './epoch.js'
import type { ResumeReport } from './resume-guard.js'
import type { StepResult } from './step-types.js'

/** A step's (or a fork's) result: `measured` gives its report and budget, measured on the first call. */
export class StepOutcome<F extends WireFormat> implements StepResult<F> {
  readonly #build: SessionBuild<F>
  readonly #format: F
  readonly #measured: () => StepMeasures
  declare resume?: ResumeReport
  declare side?: { kind: string }
  declare epoch?: Epoch

  constructor(
    build: SessionBuild<F>, format: F, measured: () => StepMeasures,
    public assembly: PromptAssembly, public rendered: RenderedPrompt, public system: string, public snapshot: string, public added: readonly ConversationEntry[],
  ) {
    this.#build = build
    this.#format = format
    this.#measured = measured
  }

  get request(): RequestBodies[F] {
    return this.#build.request
  }

  get body(): string {
    return this.#build.body
  }

  get headers(): Readonly<Record<string, string>> {
    return requestHeaders(this.#format, this.#build.request)
  }

  get report(): CacheReport {
    return this.#measured().report
  }

  get budget(): ContextBudget {
    return this.#measured().budget
  }
}
