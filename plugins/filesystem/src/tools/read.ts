/**
 * The `read` tool: read a text file, a page of lines at a time.
 * @module
 */
import { absolutePath, type FileToolSpec } from '../spec.js'

/** `read`: description, parameters and guidance. */
export const read: FileToolSpec = {
  name: 'read',
  description: ({ readLineLimit }) =>
    `Read a text file. Returns its lines numbered from 1, at most ${readLineLimit} lines per call, starting at \`offset\`.`,
  parameters: ({ readLineLimit }) => ({
    type: 'object',
    properties: {
      path: absolutePath('Absolute path of the file, for example `/srv/app/src/main.ts`.'),
      offset: { type: 'integer', minimum: 1, description: 'The line number to start at. Default 1.' },
      limit: {
        type: 'integer', minimum: 1, maximum: readLineLimit,
        description: `How many lines to return. Default and maximum ${readLineLimit}.`,
      },
    },
    required: ['path'],
    additionalProperties: false,
  }),
  guidance: ({ readLineLimit }) => [
    '## read',
    '',
    '- Pass an absolute path (`/srv/app/src/main.ts`, not `src/main.ts`); resolve relative paths against the working folder yourself.',
    '- Read a file before you edit or overwrite it, and read it again after an edit is refused: edits are matched against the file as it is now, not as you remember it.',
    '- The line numbers in the output are not part of the file. Never copy them into `old_string` or into content you write.',
    `- A call returns at most ${readLineLimit} lines. Continue a longer file with \`offset\` set to the next line number. For a large file, find the place with grep first and read only that region.`,
    '- When you already know several files you need, read them in the same turn instead of one per turn.',
    '- read is for files. To see what a folder contains, use glob.',
  ].join('\n'),
}
