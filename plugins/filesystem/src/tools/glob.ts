/**
 * The `glob` tool: find files by path pattern.
 * @module
 */
import { absolutePath, type FileToolSpec } from '../spec.js'

/** `glob`: description, parameters and guidance. */
export const glob: FileToolSpec = {
  name: 'glob',
  description: () =>
    'List the files under a folder whose paths match a glob pattern such as `src/**/*.test.ts`.',
  parameters: () => ({
    type: 'object',
    properties: {
      pattern: { type: 'string', minLength: 1, description: 'The glob pattern, relative to `path`, for example `**/*.md`.' },
      path: absolutePath('Absolute path of the folder to search. Default: the working folder.'),
    },
    required: ['pattern'],
    additionalProperties: false,
  }),
  guidance: () => [
    '## glob',
    '',
    '- Use glob to find files by name or extension (`**/*.md`, `src/**/index.{ts,tsx}`, `**/package.json`) instead of `find` or `ls -R` in bash.',
    '- The pattern is matched relative to `path` (an absolute folder; default the working folder). `**` crosses folders, `*` stays within one.',
    '- To find files by what they contain, use grep.',
    '- An empty result can mean a wrong folder or extension. Check both before you conclude that a file does not exist.',
  ].join('\n'),
}
