import { expect } from 'chai'
import { EXAMPLE, runBeforeAll, sh } from './helpers.js'

// Each pipeline prints the CLI's own exit status last (`node=<n>`), so it is checked apart from head's.
// No assertion on elapsed time: a CLI that keeps writing into the closed pipe (or spins) never exits, and
// the pipeline is killed after HANG ms, which only a hang reaches (each run takes about a second).
const HANG = 45_000

describe('dsh-prompt with a closed stdout', function () {
  this.timeout(4 * HANG)
  const r = runBeforeAll({
    head: () => sh(`$CLI render ${EXAMPLE.coding} | head -1; echo "node=\${PIPESTATUS[0]}"`, { timeout: HANG }),
    // `true` exits without reading: every write of the CLI meets a closed pipe (EPIPE).
    closed: () => sh(`$CLI explain ${EXAMPLE.coding} | true; echo "node=\${PIPESTATUS[0]}"`, { timeout: HANG }),
    request: () => sh(`$CLI render ${EXAMPLE.coding} --request | head -c 20; echo; echo "node=\${PIPESTATUS[0]}"`, { timeout: HANG }),
  })

  it('render | head -1 prints the first line and exits by itself, quietly', () => {
    const { stdout, stderr, timedOut } = r.head
    expect(timedOut).to.equal(false)
    expect(stdout).to.equal('# examples/coding-agent/deployment.yml: agent "main" (model deepseek-chat, provider deepseek, cwd /workspace)\nnode=0\n')
    expect(stderr).to.equal('')
  })

  it('a reader that never reads ends the CLI with exit 0, without an EPIPE error or a stack trace', () => {
    expect(r.closed.timedOut).to.equal(false)
    expect(r.closed.stdout).to.equal('node=0\n')
    expect(r.closed.stderr).to.equal('')
  })

  it('render --request | head -c 20 gets the start of the JSON body and the CLI exits 0', () => {
    expect(r.request.timedOut).to.equal(false)
    expect(r.request.stdout).to.equal('{\n  "model": "deepse\nnode=0\n')
    expect(r.request.stderr).to.equal('')
  })
})
