/**
 * The `edit` tool: replace an exact piece of text in a file.
 * @module
 */
import { absolutePath, type FileToolSpec } from '../spec.js'

/** `edit`: description, parameters and guidance. */
export const edit: FileToolSpec = {
  name: 'edit',
  description: () =>
    'Replace an exact piece of text in a file. `old_string` must occur exactly once in the file, unless `replace_all` is true.',
  parameters: () => ({
    type: 'object',
    properties: {
      path: absolutePath('Absolute path of the file to change.'),
      old_string: { type: 'string', minLength: 1, description: 'The text to replace, copied exactly from the file.' },
      new_string: { type: 'string', description: 'The replacement text (empty to delete `old_string`).' },
      replace_all: { type: 'boolean', default: false, description: 'Replace every occurrence instead of exactly one.' },
    },
    required: ['path', 'old_string', 'new_string'],
    additionalProperties: false,
  }),
  guidance: () => [
    '## edit',
    '',
    '- Read the file first. Copy `old_string` from its current content exactly: the same spaces or tabs, the same line breaks, and without the line numbers read puts in front of each line.',
    '- `old_string` must match exactly once. When it occurs more often the edit is refused: add neighbouring lines until it is unique, or set `replace_all: true` when every occurrence should change, as when renaming an identifier.',
    '- Keep each edit small: the lines that change plus enough context to be unique. Several small edits are easier to check than one that rewrites a whole function.',
    '- `new_string` replaces the match as written and must differ from `old_string`. To delete text, pass an empty `new_string`.',
    '- If nothing matched, read the file again before retrying. Do not guess at its content or loosen the match until something fits.',
  ].join('\n'),
}
