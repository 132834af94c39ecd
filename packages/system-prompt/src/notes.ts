/**
 * Where an assembly keeps what it records about itself (see `assemblyNotes` in `assemble.ts`), and the
 * render memo its notes carry: the last rendering of the sections of the same view, so a render of an
 * assembly whose section texts and variable values did not change reuses its texts and its prompt.
 * @module
 */
import type { RenderedText } from './interpolate.js'
import type { SectionBand } from './types.js'

/** The non-enumerable property of an assembly holding its notes. */
export const kNotes = Symbol('dsh.assemblyNotes')
/** The key, in an assembly's notes, of its view's render memo. */
export const kRenderMemo = Symbol('dsh.renderMemo')

/** The last rendering of a view's sections: each section's rendered text and band, index for index, and the prompt. */
export interface RenderMemo {
  readonly texts: readonly RenderedText[]
  readonly bands: readonly (SectionBand | undefined)[]
  readonly system: string
  /** Every variable name the texts reference, once, and the value each had. */
  readonly names: readonly string[]
  readonly values: readonly (string | undefined)[]
}

/** Held by a resolved view (so it goes with the view), shared by the assemblies made from it. */
export interface RenderMemoHolder {
  memo: RenderMemo | undefined
}
