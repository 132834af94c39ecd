
import z from 'schemastery'
export const name = 'nested'
export const Config = z.object({
  sandbox: z.object({ mode: z.union(['strict', 'loose']).default('strict'), roots: z.array(z.object({ path: z.string() })).default([]) }).default({}),
  limits: z.dict(z.object({ max: z.number() })).default({}),
  extra: z.intersect([z.object({ a: z.number().default(1) }), z.object({ b: z.number().default(2) })]).default({}),
  either: z.union([z.object({ kind: z.const('x'), x: z.number() }), z.object({ kind: z.const('y'), y: z.number() })]).default({ kind: 'x', x: 0 }),
  free: z.any(),
})
export function apply() {}
