import type { ReplayPageData } from '../src/html/replay-page.js'

/** A name that is markup, quotes and an entity start: every page must show it as text. */
export const HOSTILE = '<script>window.__pwned = 1</script>"\'&'

/** Three requests: a first, one that extends it, one that breaks twice (a section, a tool with a hostile name). */
export function synthetic(): ReplayPageData {
  return {
    format: 'openai-chat',
    turns: [
      { turn: 1, requestBytes: 4800, reusableBytes: 0, reusableTokens: 0, predictedCachedTokens: 0, requestTokens: 1200, breaks: [] },
      { turn: 2, requestBytes: 5200, reusableBytes: 4800, reusableTokens: 1200, predictedCachedTokens: 1152, requestTokens: 1300, breaks: [] },
      {
        turn: 3, requestBytes: 5600, reusableBytes: 1200, reusableTokens: 300, predictedCachedTokens: 0, requestTokens: 1400, breaks: [
          { message: null, section: 'deployment:persona', kind: 'section', owner: 'dsh-system-prompt', layer: 'global', cause: 'section text changed: deployment:persona' },
          { message: null, section: HOSTILE, kind: 'tool', owner: null, layer: null, cause: 'tool added: web' },
        ],
      },
    ],
  }
}
