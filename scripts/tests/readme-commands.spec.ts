/**
 * The README's first hour, as a new user meets it (issue 24): two set-up commands, then commands that
 * work in the order given on a machine whose only Yarn is the one `scripts/dsh.sh` installed in
 * `.yarn-bin/` (a bare `yarn` is "command not found" there), and install lines that pin Cordis exactly.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { expect } from 'chai'

const REPO = fileURLToPath(new URL('../../', import.meta.url))
const readme = readFileSync(`${REPO}README.md`, 'utf8')

/** Every command the README gives: the lines of its `sh` blocks and its inline code spans. */
function commands(text: string): string[] {
  const blocks = [...text.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap(([, body]) => body.split('\n').map((line) => line.replace(/\s+#.*$/, '').trim()).filter(Boolean))
  const prose = text.replace(/```[\s\S]*?```/g, '')
  const spans = [...prose.matchAll(/`([^`]+)`/g)].map(([, span]) => span.replace(/\s+/g, ' ').trim())
  return [...blocks, ...spans]
}

describe('the README: the first hour by the README alone', () => {
  it('sets up with exactly two commands, both through scripts/dsh.sh', () => {
    const setUp = readme.slice(readme.indexOf('## Set up'), readme.indexOf('\n## ', readme.indexOf('## Set up') + 1))
    const block = /```sh\n([\s\S]*?)```/.exec(setUp)![1].split('\n').filter(Boolean)
    expect(block.map((line) => line.replace(/\s+#.*$/, ''))).to.deep.equal(['bash scripts/dsh.sh demo', 'bash scripts/dsh.sh test'])
  })

  it('runs Yarn as .yarn-bin/yarn, where scripts/dsh.sh puts it, never as a bare yarn that a fresh machine lacks', () => {
    expect(readFileSync(`${REPO}scripts/dsh.sh`, 'utf8')).to.include('bin="$PWD/.yarn-bin"')
    const bare = commands(readme).filter((command) => /(^|&& |; )yarn /.test(command))
    expect(bare, 'commands that call a bare yarn').to.deep.equal([])
    expect(commands(readme).some((command) => command.startsWith('.yarn-bin/yarn dsh-prompt'))).to.equal(true)
  })

  it('installs Cordis with --save-exact, so the project records 4.0.0-rc.10 and not a caret range', () => {
    for (const page of ['README.md', 'docs/embedding.md']) {
      const installs = commands(readFileSync(`${REPO}${page}`, 'utf8')).filter((command) => command.startsWith('npm install') && command.includes('cordis@'))
      expect(installs.length, `${page}: install lines naming cordis`).to.be.greaterThan(0)
      for (const line of installs) expect(line, page).to.match(/^npm install --save-exact /)
    }
  })
})
