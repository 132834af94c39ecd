/**
 * The `write` tool: create a file or replace all of its content.
 * @module
 */
import { absolutePath, type FileToolSpec } from '../spec.js'

/** `write`: description, parameters and guidance. */
export const write: FileToolSpec = {
  name: 'write',
  description: () =>
    'Create a file, or replace the entire content of an existing one. Missing parent folders are created.',
  parameters: () => ({
    type: 'object',
    properties: {
      path: absolutePath('Absolute path of the file to create or replace.'),
      content: { type: 'string', description: 'The complete new content of the file.' },
    },
    required: ['path', 'content'],
    additionalProperties: false,
  }),
  guidance: () => [
    '## write',
    '',
    '- Use write to create a new file, or when almost all of a file changes. To change part of an existing file, use edit: it sends less text and cannot drop the parts you did not mean to touch.',
    '- Read an existing file before you replace it. Writing over a file you have not seen loses whatever you did not know was there.',
    '- `content` is the whole file: nothing is appended or merged. Keep the file\'s indentation and line-ending style, and end text files with a newline.',
    '- Create only the files the task needs. No unrequested notes, summaries, backups or README files.',
  ].join('\n'),
}
