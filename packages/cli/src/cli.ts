#!/usr/bin/env node
/**
 * The `dsh-prompt` executable: runs one invocation and exits with its code. A reader that goes away
 * (`dsh-prompt render x.yml | head -1`) ends the process at once and quietly, with the exit code the
 * command had reached (0 while it was still printing).
 * @module
 */
import { main } from './program.js'

process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0)
})
process.stderr.on('error', () => {
  // Nothing left to tell anyone; the exit code still says how it went.
})

const code = await main(process.argv.slice(2))
process.exitCode = code
// Exit once the output is handed over, even if a plugin of the deployment left a timer running.
process.stdout.write('', () => process.exit(code))
