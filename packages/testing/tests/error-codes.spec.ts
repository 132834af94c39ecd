import { expect } from 'chai'
import { longestEncoded, TestingErrors, thrown, writeGguf } from 'dsh-testing'

describe('dsh-testing: every error carries a stable code and the fields it is about', () => {
  const far = new RangeError('too far')
  const made = [
    TestingErrors.pluginNotApplied('probe', ['tools']),
    TestingErrors.serviceNeedsPrompt('agents'),
    TestingErrors.expectedThrow(42),
    TestingErrors.expectedRejection('done'),
    TestingErrors.wrongErrorType('TypeError', far),
    TestingErrors.encoderHandedTooMuch(5000, 4096),
    TestingErrors.tensorShape('output.weight', [64, 257], 3),
  ]

  it('each factory makes its error with its code and details, and the message unchanged', () => {
    expect(made.map((e) => ({ name: e.name, code: e.code, details: e.details, message: e.message }))).to.deep.equal([
      { name: 'Error', code: 'TESTING_PLUGIN_NOT_APPLIED', details: { name: 'probe', inject: ['tools'] }, message: 'plugin "probe" was not applied: is every service it injects loaded? (inject: tools)' },
      { name: 'Error', code: 'TESTING_SERVICE_NEEDS_PROMPT', details: { service: 'agents' }, message: 'bootApp(): "agents" injects systemPrompt, so it needs the systemPrompt option as well' },
      { name: 'Error', code: 'TESTING_EXPECTED_THROW', details: { returned: 42 }, message: 'expected the call to throw, but it returned 42' },
      { name: 'Error', code: 'TESTING_EXPECTED_REJECTION', details: { resolved: 'done' }, message: 'expected a rejection, but it resolved to "done"' },
      { name: 'Error', code: 'TESTING_WRONG_ERROR_TYPE', details: { expected: 'TypeError', received: far }, message: 'expected a TypeError, but got RangeError: too far' },
      { name: 'Error', code: 'TESTING_ENCODER_HANDED_TOO_MUCH', details: { length: 5000, bound: 4096 }, message: 'the encoder was handed 5000 characters at once (the bound is 4096)' },
      { name: 'Error', code: 'TESTING_TENSOR_SHAPE', details: { name: 'output.weight', shape: [64, 257], elements: 3 }, message: 'writeGguf(): tensor "output.weight" has shape 64x257 but 3 elements of data' },
    ])
  })

  it('covers every factory of the catalogue, each with a code of its own', () => {
    expect(made.length).to.equal(Object.values(TestingErrors).filter((value) => typeof value === 'function').length)
    expect(new Set(made.map((e) => e.code)).size).to.equal(made.length)
  })

  it('longestEncoded() fails with TESTING_ENCODER_HANDED_TOO_MUCH when the encoder is handed more than the bound, and else gives the longest text', async () => {
    const { encode } = await import('gpt-tokenizer/encoding/o200k_base')
    expect(await longestEncoded(() => encode('a few words'), 64)).to.be.within(1, 64)
    const error = await longestEncoded(() => encode('x'.repeat(100)), 64).then(() => undefined, (caught: Error & { code?: string }) => caught)
    expect(error?.code).to.equal('TESTING_ENCODER_HANDED_TOO_MUCH')
  })

  it('thrown() fails with TESTING_EXPECTED_THROW when the call returns', () => {
    const error = thrown(() => thrown(() => 'fine')) as Error & { code?: string }
    expect(error.code).to.equal('TESTING_EXPECTED_THROW')
  })
})

describe('dsh-testing: the GGUF writer', () => {
  it('refuses a tensor whose data does not fill its shape, with TESTING_TENSOR_SHAPE naming the tensor', () => {
    expect(thrown(() => writeGguf([], [{ name: 'w', shape: [2, 2], data: new Float32Array(3) }]))).to.include({ code: 'TESTING_TENSOR_SHAPE' }).and.have.nested.property('details.name', 'w')
  })
})
