import { expect } from 'chai'
import * as wire from 'dsh-wire'

describe('dsh-wire: the package root', () => {
  it('exports the format builders, the planner, normalizeUsage and the error catalogue', () => {
    for (const name of ['buildRequest', 'openaiChatRequest', 'openaiResponsesRequest', 'anthropicRequest', 'geminiRequest', 'planBreakpoints', 'normalizeUsage', 'buildMessages']) {
      expect(typeof (wire as Record<string, unknown>)[name], name).to.equal('function')
    }
    expect(Object.keys(wire.WireErrors).sort()).to.deep.equal([
      'invalidBreakpoints', 'invalidParts', 'invalidReply', 'invalidToolArguments', 'invalidUsage', 'unknownFormat', 'unmatchedToolResult', 'unsupportedPart',
      'unsupportedReplyItem', 'unsupportedToolCall',
    ])
  })

  it('the update marker is one line, in brackets, so it can be told from user input', () => {
    expect(wire.SYSTEM_PROMPT_UPDATE_MARKER).to.match(/^\[[^\n]+\]$/)
    expect(wire.systemUpdateText('X')).to.equal(`${wire.SYSTEM_PROMPT_UPDATE_MARKER}\n\nX`)
  })
})
