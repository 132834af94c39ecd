/**
 * Each step's reuse report and budget, measured when first read (R-CACHE-10). Counting needs a
 * tokenizer whose tables cost about half a second to load, and a harness that never reads a token
 * count should never pay for it. The measurements of one agent form a chain: each report is measured
 * against the previous request of its format, each budget moves the previous advice, and a recorded
 * usage reconciles the latest report. So the steps' measurements wait in a queue, in order, and the
 * first read of any of them runs the queue up to the end (everything before it first, so each is what
 * an eager measurement would have been). A fork measures at once: it flushes the queue first.
 * What a step hands over is fixed at the step (its build, assembly, and the registration behind each
 * tool), so a later change cannot leak into an earlier report.
 *
 * A waiting measurement holds its step's build, assembly and rendered texts: about 26 KB a step with a
 * 3 KB persona and 20 tools, the same at every length of the conversation (with the bound lifted, 63,
 * 126 and 252 unread steps held 1.96, 3.44 and 6.76 MB). Without a bound an agent that is never read
 * would grow by that much at every step for as long as it lives, and skipping a measurement is not
 * possible (each report and budget is measured against the one before). So the queue is bounded: once
 * {@link MAX_PENDING_MEASURES} steps of an agent wait, they run (the tokenizer loads then). A harness
 * that reads no count pays no tokenizer for an agent's first {@link MAX_PENDING_MEASURES} steps, and
 * its memory stays bounded in a long conversation (about 1.7 MB an agent at most, on that workload).
 * The bound is not an option: a harness that wants no tokenizer at all also wants bounded memory, and
 * the figures are the same either way (`tests/deferred-measures-model.spec.ts` checks random programs,
 * runs of unread steps past the bound included, against eager measurement).
 * @module
 */
import type { CacheProvider, CacheReport, TokenCounter, Usage, WireFormat } from 'dsh-wire'
import type { ContextBudget, BudgetTracker } from './budget.js'
import type { ReuseInput, ReuseTracker } from './cache-report.js'

/** How many steps of one agent may wait to be measured before the queue runs. */
export const MAX_PENDING_MEASURES = 64

/** One step's measured figures. */
export interface StepMeasures {
  report: CacheReport
  budget: ContextBudget
}

/** The measurement queue of one agent. */
export class DeferredMeasures {
  private pending: Array<() => void> = []
  /** How many of `pending` are steps (the others reconcile a usage). */
  private steps = 0

  constructor(private readonly reuse: ReuseTracker, private readonly budget: BudgetTracker) {}

  /** The token counter of `provider` (handed out at once: its tokenizer loads on its first count). */
  counter(provider: CacheProvider): Promise<TokenCounter> {
    return this.reuse.counter(provider)
  }

  /**
   * Queues the measurement of one step (`then` runs with its report, before its budget: what the step's
   * other parts add to the report); the function returned runs the queue as far as it and returns its figures.
   */
  step<F extends WireFormat>(input: ReuseInput<F>, counter: TokenCounter, then?: (report: CacheReport) => void): () => StepMeasures {
    let figures: StepMeasures | undefined
    this.pending.push(() => {
      const report = this.reuse.measure(input, counter)
      then?.(report)
      figures = { report, budget: this.budget.measure(report.requestTokens, report.tokenizer) }
    })
    if (++this.steps > MAX_PENDING_MEASURES) this.flush()
    return () => {
      if (!figures) this.flush()
      return figures!
    }
  }

  /** Reconciles the latest report with a recorded usage, after the measurements queued before it. */
  reconcile(usage: Usage, now: number): void {
    this.after(() => this.reuse.reconcile(usage, now))
  }

  /** Runs `work` after the measurements queued before it (at once when none waits). */
  after(work: () => void): void {
    if (this.pending.length === 0) work()
    else this.pending.push(work)
  }

  /** Runs every queued measurement, in order. */
  flush(): void {
    this.steps = 0
    while (this.pending.length > 0) {
      const run = this.pending.shift()!
      run()
    }
  }

  /** The tracker, with every queued measurement run (a fork measures against it at once). */
  current(): ReuseTracker {
    this.flush()
    return this.reuse
  }
}
