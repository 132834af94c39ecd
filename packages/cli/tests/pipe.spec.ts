import { expect } from 'chai'
import { EXAMPLE, runBeforeAll, sh } from './helpers.js'

// Each pipeline prints the CLI's own exit status last (`node=<n>`), so it is checked apart from head's.
describe('dsh-prompt with a closed stdout', function () {
  this.timeout(60000)
  const r = runBeforeAll({
    head: () => sh(`$CLI render ${EXAMPLE.coding} | head -1; echo "node=\${PIPESTATUS[0]}"`, { timeout: 10000 }),
    // `true` exits without reading: every write of the CLI meets a closed pipe (EPIPE).
    closed: () => sh(`$CLI explain ${EXAMPLE.coding} | true; echo "node=\${PIPESTATUS[0]}"`, { timeout: 10000 }),
    request: () => sh(`$CLI render ${EXAMPLE.coding} --request | head -c 20; echo; echo "node=\${PIPESTATUS[0]}"`, { timeout: 10000 }),
  })

  it('render | head -1 prints the first line and exits promptly and quietly', () => {
    const { stdout, stderr, timedOut, ms } = r.head
    expect(timedOut).to.equal(false)
    expect(stdout).to.equal('# examples/coding-agent/deployment.yml: agent "main" (model deepseek-chat, provider deepseek, cwd /workspace)\nnode=0\n')
    expect(stderr).to.equal('')
    expect(ms).to.be.below(5000)
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
