import { expect } from 'chai'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const REPO = fileURLToPath(new URL('../../', import.meta.url))

/**
 * Reading elapsed time in a test: a clock read made to measure a duration. A test counts work instead,
 * or bounds a wait only to catch a hang (a kill timer, mocha's timeout); speed lives in `bench/` as
 * ratios from one run. Faking `Date.now` (assigning it) is not a read and is allowed.
 */
const ELAPSED = [/performance\.now\(/, /process\.hrtime/, /Date\.now\(\)\s*-/, /-\s*Date\.now\(\)/, /getTime\(\)\s*-/, /\bmonitorEventLoopDelay\b/]

/** Every TypeScript and JavaScript file under the test folders of the packages, the plugins and scripts/. */
function testFiles(): string[] {
  const folders = [
    ...['packages', 'plugins'].flatMap((group) => readdirSync(join(REPO, group)).map((pkg) => join(REPO, group, pkg, 'tests'))),
    join(REPO, 'scripts/tests'),
  ]
  const found: string[] = []
  const walk = (folder: string) => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name)
      if (statSync(path).isDirectory()) walk(path)
      else if (/\.(ts|mts|js|mjs|cjs)$/.test(name)) found.push(path)
    }
  }
  for (const folder of folders) if (statSync(folder, { throwIfNoEntry: false })?.isDirectory()) walk(folder)
  return found
}

describe('the tests: no wall-clock assertion (issue 19 item 5)', () => {
  it('no test file reads elapsed time (performance.now(), process.hrtime, Date.now() - …)', () => {
    const files = testFiles().filter((file) => file !== fileURLToPath(import.meta.url))
    expect(files.length).to.be.above(100)
    const reads = files.flatMap((file) => readFileSync(file, 'utf8').split('\n').flatMap((line, index) =>
      ELAPSED.some((pattern) => pattern.test(line)) ? [`${relative(REPO, file)}:${index + 1}: ${line.trim()}`] : []))
    expect(reads).to.deep.equal([])
  })
})
