/**
 * The `grep` tool: search file contents with a regular expression.
 * @module
 */
import { absolutePath, type FileToolSpec } from '../spec.js'

/** `grep`: description, parameters and guidance. */
export const grep: FileToolSpec = {
  name: 'grep',
  description: () =>
    'Search file contents with a regular expression. Returns the matching files, the matching lines with their line numbers, or a count per file, depending on `output`.',
  parameters: () => ({
    type: 'object',
    properties: {
      pattern: { type: 'string', minLength: 1, description: 'The regular expression to search for.' },
      path: absolutePath('Absolute path of the file or folder to search. Default: the working folder.'),
      include: { type: 'string', minLength: 1, description: 'Only search files whose names match this glob, for example `*.ts`.' },
      output: {
        type: 'string', enum: ['files', 'content', 'count'], default: 'files',
        description: '`files`: matching file paths; `content`: matching lines; `count`: matches per file.',
      },
      ignore_case: { type: 'boolean', default: false, description: 'Match regardless of letter case.' },
      context_lines: {
        type: 'integer', minimum: 0, maximum: 20,
        description: 'With `output: "content"`, also show this many lines before and after each match.',
      },
    },
    required: ['pattern'],
    additionalProperties: false,
  }),
  guidance: () => [
    '## grep',
    '',
    '- Search file contents with grep, not with `grep` or `rg` in bash.',
    '- The pattern is a regular expression. Escape characters you mean literally: `getUser\\(`, `\\{\\{name\\}\\}`, `a\\.b`. Use `\\b` for word boundaries.',
    '- Start cheap: the default `output: "files"` lists matching files only. Once you know where to look, switch to `output: "content"` (with `context_lines` when the surroundings matter) and narrow with `include` (`*.ts`) or a more specific `path`.',
    '- Set `ignore_case: true` for words whose capitalisation varies.',
    '- A match tells you where to look. Read the surrounding code before you change it.',
  ].join('\n'),
}
