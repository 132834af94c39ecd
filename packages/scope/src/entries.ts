/**
 * Small entry tables for the layers of a published-style {@link ScopedLayers}: named entries (a name once
 * per table) and anonymous entries (every append its own entry, equal values included). Both keep
 * insertion order, hand back an undo per entry, and iterate live: an iterator sees entries added while
 * it runs, until the table drains; after that the table starts a new generation that earlier iterators
 * never see.
 * @module
 */

/** What both tables share: one generation of entries, and the undo that takes out exactly one entry. */
abstract class EntryTable<K, V> {
  /** The current generation; replaced by an empty one when it drains. */
  protected current = new Map<K, V>()

  /** Files `value` under `key` in the current generation; the undo removes that entry once. */
  protected file(key: K, value: V): () => void {
    const generation = this.current
    generation.set(key, value)
    let filed = true
    return () => {
      if (!filed) return
      filed = false
      generation.delete(key)
      if (generation.size === 0 && generation === this.current) this.current = new Map()
    }
  }

  /** The values, in insertion order, live within the current generation. */
  values(): IterableIterator<V> {
    return this.current.values()
  }

  /** Whether the table holds no entry. */
  isEmpty(): boolean {
    return this.current.size === 0
  }
}

/**
 * Entries by name, one per name. The caller says what a second insertion of a name throws (its own coded
 * error), so the table never speaks for the registry it serves. Values are kept, not copied.
 */
export class NamedEntries<V> extends EntryTable<string, V> {
  constructor(private readonly duplicate: (name: string) => Error) {
    super()
  }

  /**
   * Files `value` under `name` and returns the undo that takes out this entry (later calls, or a call
   * after the name was filed again, do nothing). Throws the caller's duplicate error for a taken name,
   * filing nothing.
   */
  insert(name: string, value: V): () => void {
    if (this.current.has(name)) throw this.duplicate(name)
    return this.file(name, value)
  }

  /** The value filed under `name`. */
  get(name: string): V | undefined {
    return this.current.get(name)
  }

  /** Whether `name` is filed. */
  has(name: string): boolean {
    return this.current.has(name)
  }

  /** The names, in insertion order (live, like {@link EntryTable.values}). */
  keys(): IterableIterator<string> {
    return this.current.keys()
  }

  /** `[name, value]` pairs, in insertion order (live, like {@link EntryTable.values}). */
  entries(): IterableIterator<[string, V]> {
    return this.current.entries()
  }
}

/** Entries without names: each append is an entry of its own, so two equal values stay two registrations. */
export class AnonymousEntries<V> extends EntryTable<symbol, V> {
  /** Files `value` as a new entry and returns the undo that takes out this entry only, once. */
  append(value: V): () => void {
    return this.file(Symbol(), value)
  }
}
