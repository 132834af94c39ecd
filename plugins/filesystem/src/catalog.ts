/**
 * The filesystem tools by name, and the tool definitions a configuration produces.
 * @module
 */
import type { ToolDefinition } from 'dsh-tools'
import { edit } from './tools/edit.js'
import { glob } from './tools/glob.js'
import { grep } from './tools/grep.js'
import { read } from './tools/read.js'
import { write } from './tools/write.js'
import type { FileToolLimits, FileToolName, FileToolSpec } from './spec.js'

/** Every filesystem tool's spec, by name. */
export const FILE_TOOLS: Readonly<Record<FileToolName, FileToolSpec>> = Object.freeze({ read, write, edit, glob, grep })

/** Per-tool replacements of the built-in texts. */
export interface FileToolOverride {
  /** Replaces the built-in description. */
  description?: string
  /** Replaces the built-in guidance (emitted verbatim). */
  guidance?: string
}

/** What {@link fileToolDefinitions} needs: which tools, the limits, and the text choices. */
export interface FileToolSelection extends FileToolLimits {
  tools: readonly FileToolName[]
  includeGuidance: boolean
  overrides: Partial<Record<FileToolName, FileToolOverride>>
}

/** The tool definitions to register, in the order `selection.tools` lists them. */
export function fileToolDefinitions(selection: FileToolSelection): ToolDefinition[] {
  return selection.tools.map((name) => {
    const spec = FILE_TOOLS[name]
    const override = selection.overrides[name] ?? {}
    const tool: ToolDefinition = {
      name,
      description: override.description ?? spec.description(selection),
      parameters: spec.parameters(selection),
    }
    if (selection.includeGuidance) tool.guidance = override.guidance ?? spec.guidance(selection)
    return tool
  })
}
