import { expect } from 'chai'
import { readFileSync } from 'node:fs'
import { cli } from './helpers.js'

// docs/cli.md quotes each command's --help; a flag added without the docs fails here.

const DOC = readFileSync(new URL('../../../docs/cli.md', import.meta.url), 'utf8')
const BLOCKS = [...DOC.matchAll(/```text\n\$ dsh-prompt( [a-z]+)? --help\n([\s\S]*?)```/g)].map((m) => ({ command: m[1]?.trim(), text: m[2] }))

describe('dsh-prompt: docs/cli.md quotes every --help as it is', () => {
  it('quotes the help of the program and of several commands', () => {
    expect(BLOCKS.length).to.be.at.least(5)
  })

  for (const block of BLOCKS) {
    it(`dsh-prompt ${block.command ?? ''} --help`.replace('  ', ' '), async () => {
      const run = await cli(block.command ? [block.command, '--help'] : ['--help'], { env: { COLUMNS: '80' } })
      expect(run.code).to.equal(0)
      expect(run.stdout.replace(/\n+$/, '\n')).to.equal(block.text)
    })
  }
})
