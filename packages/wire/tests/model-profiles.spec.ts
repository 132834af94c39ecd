import { expect } from 'chai'
import { DEFAULT_MODEL_PROFILE, inputBudget, MODEL_PROFILES, MODEL_PROFILES_CHECKED, modelProfile } from 'dsh-wire'
import { overrideProblem, profileRow } from 'dsh-wire/internal'

describe('dsh-wire: model profiles', () => {
  it('finds a model by its exact id before any pattern', () => {
    const profile = modelProfile('deepseek-chat')
    expect([profile.name, profile.origin, profile.contextWindow, profile.inputCap, profile.outputReserve]).to.deep.equal(['deepseek-chat', 'table', 128_000, 128_000, 8_192])
    expect(profile.source).to.equal('https://api-docs.deepseek.com/quick_start/pricing')
    expect(profile.checked).to.equal(MODEL_PROFILES_CHECKED)
  })

  it('finds a dated model id through its pattern, the first matching row winning (gpt-5-chat before gpt-5)', () => {
    expect(modelProfile('gpt-4.1-2025-04-14').name).to.equal('gpt-4.1*')
    expect(modelProfile('claude-sonnet-4-5-20250929').name).to.equal('claude-sonnet-4-5*')
    expect(modelProfile('gpt-5-chat-latest').name).to.equal('gpt-5-chat*')
    expect(modelProfile('gpt-5-mini').name).to.equal('gpt-5*')
    expect(modelProfile('o1-mini').contextWindow).to.equal(128_000)
    expect(modelProfile('GPT-4o').name).to.equal('gpt-4o*')
  })

  it('keeps the input cap apart from the window where the provider caps input below it (GPT-5: 272,000 of 400,000)', () => {
    const profile = modelProfile('gpt-5')
    expect([profile.contextWindow, profile.inputCap, inputBudget(profile)]).to.deep.equal([400_000, 272_000, 272_000])
    // Where input and output share the window, the reserve comes out of it.
    expect(inputBudget(modelProfile('deepseek-chat'))).to.equal(128_000 - 8_192)
  })

  it('gives an unknown model the conservative default, labelled as such, never nothing', () => {
    const profile = modelProfile('mock-model')
    expect(profile).to.equal(DEFAULT_MODEL_PROFILE)
    expect([profile.name, profile.origin, profile.source]).to.deep.equal(['default', 'default', null])
    expect(profileRow('mock-model')).to.equal(undefined)
  })

  it('lays a deployment override over the table row, and marks the profile as the deployment\'s', () => {
    const profile = modelProfile('deepseek-chat', { contextWindow: 64_000 })
    expect([profile.name, profile.origin, profile.contextWindow, profile.inputCap, profile.outputReserve]).to.deep.equal(['deepseek-chat', 'deployment', 64_000, 64_000, 8_192])
    // A lower input cap of the row stays when only the window changes.
    expect(modelProfile('gpt-5', { contextWindow: 300_000 }).inputCap).to.equal(272_000)
    // An override of an unknown model replaces the default's figures; a cap above the window raises it.
    expect(modelProfile('mock-model', { inputCap: 100_000 })).to.include({ origin: 'deployment', contextWindow: 100_000, inputCap: 100_000 })
  })

  it('says what is wrong with an override, naming the key', () => {
    expect(overrideProblem({ contextWindow: 0 }, 'm')?.key).to.equal('contextWindow')
    expect(overrideProblem({ window: 1 }, 'm')?.key).to.equal('window')
    expect(overrideProblem({ contextWindow: 10, inputCap: 20 }, 'm')?.key).to.equal('inputCap')
    expect(overrideProblem({ outputReserve: 200_000 }, 'deepseek-chat')?.key).to.equal('outputReserve')
    expect(overrideProblem('big', 'm')?.key).to.equal('')
    expect(overrideProblem({ contextWindow: 1_000_000, outputReserve: 64_000 }, 'm')).to.equal(undefined)
  })

  it('every row names its source document and the day it was checked, and fits its own window', () => {
    for (const row of MODEL_PROFILES) {
      expect(row.source, row.match).to.match(/^https:\/\//)
      expect(row.checked, row.match).to.match(/^\d{4}-\d{2}-\d{2}$/)
      expect(row.inputCap, row.match).to.be.at.most(row.contextWindow)
      expect(row.outputReserve, row.match).to.be.below(row.contextWindow)
    }
  })
})
