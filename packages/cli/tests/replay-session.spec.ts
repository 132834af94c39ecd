/**
 * The whole session, played (issue 21, first "Done when"): `examples/coding-agent/session.yml` against
 * the coding-agent deployment in each format, through `dsh-prompt replay --json`. The script has a title
 * fork, a sub-agent started from its parent, a tool hidden, a plugin that owns a tool disposed, and a
 * compaction whose first request (the re-anchor) is request 30.
 */
import { expect } from 'chai'
import { EXAMPLE, fixture, runInProcess } from './helpers.js'

const SCRIPT = 'examples/coding-agent/session.yml'

interface Row {
  turn: number
  requestTokens: number
  reusableTokens: number
  predictedCachedTokens: number
  breaks: unknown[]
  limit?: string
  changes: string[]
  side?: { kind: string }
  toolChanges?: Array<{ tool: string; kind: string; owner: string | null; handling: string; breaks: boolean; cost: number; fallback?: string; via?: string; kept?: { section: string; owner: string | null }[] }>
}

const FORMATS = ['openai-chat', 'openai-responses', 'anthropic', 'gemini'] as const
const REANCHOR = 30

async function play(format: string, deployment: string = EXAMPLE.coding, script: string = SCRIPT): Promise<Row[]> {
  const result = await runInProcess(['replay', deployment, '--script', script, '--format', format, '--json'])
  expect(result.code, result.stderr).to.equal(0)
  return (JSON.parse(result.stdout) as { turns: Row[] }).turns
}

/** The agent's own request before `row` (side requests are measured against it, and leave it the latest). */
function latestBefore(rows: readonly Row[], row: Row): Row {
  return rows.slice(0, row.turn - 1).filter((earlier) => !earlier.side).at(-1)!
}

/** The provider rule's cap of a prefix of `tokens`: whole units when the row names a unit granularity (DeepSeek's 64, OpenAI's 128 after 1,024). */
function capped(tokens: number, limit: string | undefined): number {
  const unit = /whole (\d+)-token/.exec(limit ?? '')
  if (!unit) return tokens
  const size = Number(unit[1])
  const floor = /after the first (\d+)/.exec(limit ?? '')
  const base = floor ? Number(floor[1]) : 0
  return tokens < base ? 0 : base + Math.floor((tokens - base) / size) * size
}

describe('dsh-prompt replay: the coding agent\'s whole session (examples/coding-agent/session.yml, issue 21)', () => {
  for (const format of FORMATS) {
    it(`every request but the first and the re-anchor predicts at least 90% of its tokens cached, a removed tool included (its guidance kept as sent); the fork and the sub-agent are credited the parent's whole prefix (${format})`, async () => {
      const rows = await play(format)
      expect(rows.length).to.be.at.least(36)
      const reanchor = rows[REANCHOR - 1]
      expect(reanchor.changes.join()).to.match(/^epoch 1: (stable|new)-opening, predicted [\d,.]+ now \(\+[\d,.]+\/request\)$/)
      for (const row of rows.slice(1)) {
        if (row === reanchor) continue
        // A tool with no append path (`fallback`) would be a break reported as such; this script adds none.
        expect(row.toolChanges?.filter((change) => change.fallback) ?? [], `request ${row.turn}`).to.deep.equal([])
        expect(row.breaks, `request ${row.turn}`).to.deep.equal([])
        expect(row.predictedCachedTokens / row.requestTokens, `request ${row.turn}: ${row.predictedCachedTokens} of ${row.requestTokens}`).to.be.at.least(0.9)
      }
      // The removed tools stay declared and inert with their guidance sections as last sent (R-TOOL-12):
      // the system prompt does not change, so the request extends the previous one with no version appended.
      const removed = rows.filter((row) => row.toolChanges?.some((change) => change.kind === 'removed' && change.handling === 'inert'))
      expect(removed.map((row) => row.toolChanges!.map((change) => [change.tool, change.kept]))).to.deep.equal([
        [['glob', [{ section: 'tool:glob', owner: 'dsh-plugin-filesystem (rows dsh-plugin-filesystem, scratch-files)' }]]],
        [['write', [{ section: 'tool:write', owner: 'dsh-plugin-filesystem' }]]],
      ])
      for (const row of removed) expect(row.reusableTokens, `request ${row.turn}`).to.equal(latestBefore(rows, row).requestTokens)
      for (const kind of ['title', 'subagent']) {
        const side = rows.find((row) => row.side?.kind === kind)!
        const parent = latestBefore(rows, side)
        expect(side.reusableTokens, kind).to.equal(parent.requestTokens)
        expect(side.predictedCachedTokens, kind).to.equal(capped(parent.requestTokens, side.limit))
      }
    })
  }

  /**
   * A tool added mid-conversation (R-TOOL-13), per format: `tool-added.yml` turns `grep` on before request
   * 4 on an Anthropic model that takes mid-conversation system messages, with `wire.toolAdditions`.
   * Anthropic has a documented append path (a `tool_addition` block): no break. The others have none, and
   * say why: the tool is declared at once and the break is predicted and reported with its owner and cost.
   */
  const ADDED = fixture('tool-added.yml')
  const APPEND_DEPLOYMENT = fixture('tool-append-deployment.yml')
  const NO_APPEND_PATH: Record<string, string> = {
    'openai-chat': 'openai-chat has no append path for an added tool (chat completions take tools only in the request\'s tools list)',
    'openai-responses': 'openai-responses has no append path for an added tool (tool search loads only tools declared with defer_loading from the start, when the model searches)',
    gemini: 'gemini has no append path for an added tool (generateContent takes function declarations only in the request\'s tools)',
  }
  for (const format of FORMATS) {
    const appended = format === 'anthropic'
    it(`a tool added mid-conversation (${format}): ${appended ? 'through the append path, no break' : 'no append path: declared now, the break predicted with its owner and cost'}; every other request reads the whole request before it`, async () => {
      const rows = await play(format, APPEND_DEPLOYMENT, ADDED)
      const added = rows[3]
      expect(added.toolChanges!.map(({ tool, kind, owner }) => [tool, kind, owner])).to.deep.equal([['grep', 'added', 'dsh-plugin-filesystem']])
      const [change] = added.toolChanges!
      if (appended) {
        expect(change).to.deep.include({ handling: 'appended', breaks: false, cost: 0 })
        expect(change.via).to.match(/^a system message of tool_addition blocks \(platform\.claude\.com\/docs\/en\/build-with-claude\/mid-conversation-system-messages#/)
        expect(added.breaks).to.deep.equal([])
        // The tool's guidance section is a new prompt version, appended whole: everything before it is cached.
        expect(added.predictedCachedTokens).to.equal(capped(rows[2].requestTokens, added.limit))
      } else {
        expect(change).to.deep.include({ handling: 'declared', breaks: true, fallback: NO_APPEND_PATH[format] })
        expect(change.cost).to.equal(rows[2].requestTokens - added.predictedCachedTokens).and.to.be.greaterThan(0)
        expect(added.breaks[0]).to.deep.include({ kind: 'tool', section: 'grep', owner: 'dsh-plugin-filesystem' })
      }
      // Every other request reads all of the one before it (in the provider's units: a short prompt is a few of OpenAI's 128-token units).
      rows.forEach((row, i) => {
        if (i === 0 || row === added) return
        expect(row.toolChanges, `request ${row.turn}`).to.equal(undefined)
        expect(row.predictedCachedTokens, `request ${row.turn}`).to.equal(capped(rows[i - 1].requestTokens, row.limit))
      })
    })
  }
})
