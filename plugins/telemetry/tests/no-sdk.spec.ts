import { expect } from 'chai'
import { metrics, trace } from '@opentelemetry/api'
import TelemetryPlugin, { type ConfigInput } from 'dsh-plugin-telemetry'
import { bootApp, longestEncoded } from 'dsh-testing'
import { memorySdk } from './otel.js'

// With @opentelemetry/api installed and no SDK registered, the API's providers are no-ops: the plugin
// then reads nothing of a step that the step would not have made anyway. The work is counted (the
// tokenizer's encoder, which measuring a step's report runs), never timed.

/** The longest text the tokenizer encodes while an agent with the plugin (`config`) steps three times, recording usage. */
async function encodedWith(config: ConfigInput): Promise<number> {
  const { host } = await bootApp({ systemPrompt: { persona: 'Persona. ' + 'Keep the code tidy and the tests honest. '.repeat(40) }, agents: true })
  await host.plugin(TelemetryPlugin, config)
  const agent = await host.agents.create({ id: 'main', model: 'gpt-5' })
  return longestEncoded(async () => {
    for (const input of ['One.', 'Two.', 'Three.']) {
      await agent.step(input)
      agent.record({ role: 'assistant', content: `Answer to ${input}` }, { usage: { inputTokens: 900, cachedReadTokens: 800, cacheWriteTokens: null, outputTokens: 3 } })
    }
  }, Infinity)
}

describe('dsh-plugin-telemetry with @opentelemetry/api and no SDK', () => {
  it('no global provider is registered in this process (what the next test relies on)', () => {
    expect(trace.getTracerProvider().getTracer('probe').startSpan('probe').isRecording()).to.equal(false)
    expect(metrics.getMeterProvider().getMeter('probe')).to.equal(metrics.getMeterProvider().getMeter('other'))
  })

  it('measures no step\'s report (no token is counted), where an SDK makes it count them', async () => {
    expect(await encodedWith({})).to.equal(0)
    const sdk = memorySdk()
    expect(await encodedWith({ tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider })).to.be.above(0)
  })
})
