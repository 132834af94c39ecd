import { measureCompaction } from '/work/wt/epochs/bench/compaction.ts'
const results = await measureCompaction(['openai-chat', 'anthropic'], Number(process.argv[2] ?? 3))
for (const [format, r] of results) console.log(format, 'step', r.step.median.toFixed(0), 'plan', r.plan.median.toFixed(0), 'after', r.after.median.toFixed(0), 'planRatio', r.planRatio.toFixed(2), 'afterRatio', r.afterRatio.toFixed(2))
