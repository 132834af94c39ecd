// Mocha's spec reporter, followed by the plain summary line CI reads: `N passed, N failed`.
// A run that executed no test therefore prints `0 passed, 0 failed` and is visible as such.
'use strict'
const Mocha = require('mocha')

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options)
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const { passes, failures, pending } = runner.stats
      process.stdout.write(`\n${passes} passed, ${failures} failed${pending ? `, ${pending} skipped` : ''}\n`)
    })
  }
}

module.exports = SummaryReporter
