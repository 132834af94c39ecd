import { expect } from 'chai'
import * as wire from 'dsh-wire'
import * as internal from 'dsh-wire/internal'

describe('dsh-wire: the package root', () => {
  it('exports the format builders, the registries, the planner, normalizeUsage and the error catalogue', () => {
    for (const name of [
      'buildRequest', 'openaiChatRequest', 'openaiResponsesRequest', 'anthropicRequest', 'geminiRequest', 'planBreakpoints', 'normalizeUsage', 'buildMessages',
      'registerWireFormat', 'wireFormat', 'registerProvider', 'providerFamily', 'tokenCounter', 'toolProblems', 'objectSchemaRule', 'vllmFamily', 'sglangFamily',
    ]) {
      expect(typeof (wire as Record<string, unknown>)[name], name).to.equal('function')
    }
    expect(Object.keys(wire.WireErrors).sort()).to.deep.equal([
      'duplicateFormat', 'duplicateProvider', 'emptyText', 'invalidBreakpoints', 'invalidGguf', 'invalidParts', 'invalidProviderOption', 'invalidReply', 'invalidToolArguments', 'invalidToolName', 'invalidToolParameters', 'invalidUsage', 'ownedField', 'unknownFormat', 'unknownProvider',
      'unmatchedToolResult', 'unsupportedPart', 'unsupportedReplyItem', 'unsupportedToolCall', 'unsupportedVocabulary',
    ])
  })

  it('keeps what the modules are made of in dsh-wire/internal, not at the root (issue 19: splitOpening, callsById and applyBreakpoints are gone)', () => {
    for (const name of ['openaiChatFormat', 'anthropicPlanner', 'openaiCachedTokens', 'markerCachedTokens', 'mismatchReason', 'placeEntry', 'canonicalJson']) {
      expect(typeof (internal as Record<string, unknown>)[name], name).to.not.equal('undefined')
      expect(Object.hasOwn(wire, name), name).to.equal(false)
    }
    for (const name of ['splitOpening', 'callsById', 'applyBreakpoints']) expect(Object.hasOwn(wire, name) || Object.hasOwn(internal, name), name).to.equal(false)
  })

  it('the update marker is one line, in brackets, so it can be told from user input', () => {
    expect(wire.SYSTEM_PROMPT_UPDATE_MARKER).to.match(/^\[[^\n]+\]$/)
    expect(internal.systemUpdateText('X')).to.equal(`${wire.SYSTEM_PROMPT_UPDATE_MARKER}\n\nX`)
  })
})
