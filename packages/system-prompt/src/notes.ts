/**
 * Where an assembly keeps what it records about itself (see `assemblyNotes` in `assemble.ts`), and the
 * render memo its notes carry: the last rendering of the sections of the same view, so a render of an
 * assembly whose section texts and variable values did not change reuses its texts and its prompt.
 * @module
 */
import type { RenderedText } from './interpolate.js'
import type { SectionBand } from './types.js'

/**
 * Lets a subclass put its private field on any object: a constructor that returns an object makes
 * that object the `this` of the subclass's constructor, which then installs its fields on it.
 */
class OnObject {
  constructor(target: object) {
    return target
  }
}

/**
 * An assembly's notes live in a private field installed on the assembly object itself: no copy, JSON,
 * `Reflect.ownKeys`, structured clone or deep comparison sees it, a copy does not carry it, and it goes
 * with the assembly. Not a symbol-keyed property made with `Object.defineProperty` (a runtime call per
 * assembly, about 0.16 µs here, 0.5 µs on an object made by a spread), nor a WeakMap keyed by
 * assemblies (V8 never shrinks a WeakMap's table for entries the collector clears, and a harness makes
 * assemblies by the hundred thousand).
 */
class NotesStamp extends OnObject {
  #notes: unknown

  private constructor(target: object, notes: unknown) {
    super(target)
    this.#notes = notes
  }

  /** Installs `notes` on `target` (once: an object already holding notes throws a TypeError). */
  static stamp(target: object, notes: unknown): void {
    new NotesStamp(target, notes)
  }

  /** The notes `stamp` installed on `target`, or `undefined`. */
  static read<N>(target: unknown): N | undefined {
    return typeof target === 'object' && target !== null && #notes in target ? (target as NotesStamp).#notes as N : undefined
  }
}

/** Installs an assembly's notes (see `NotesStamp`). */
export function stampNotes<N>(assembly: object, notes: N): void {
  NotesStamp.stamp(assembly, notes)
}

/** The notes {@link stampNotes} installed on `assembly`, or `undefined`. */
export function readNotes<N>(assembly: unknown): N | undefined {
  return NotesStamp.read<N>(assembly)
}
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
