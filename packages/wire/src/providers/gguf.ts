/**
 * Reads the metadata of a GGUF model file (llama.cpp's format, version 2 or 3): the key/value pairs of
 * its header, such as `tokenizer.ggml.tokens` and `tokenizer.chat_template`. The tensors are not read:
 * a multi-gigabyte model costs only its header (the vocabulary, a few megabytes at most), read in
 * chunks from the file.
 * @module
 */
import { closeSync, openSync, readSync } from 'node:fs'
import { invalidGguf } from '../errors.js'

/** A metadata value: numbers (64-bit integers as `bigint`), booleans, strings, and arrays of them. */
export type GgufMetadataValue = number | bigint | boolean | string | GgufMetadataValue[]

const CHUNK = 1 << 20

/** Reads bytes forward from a file, a chunk at a time. */
class Reader {
  private buffer = Buffer.alloc(0)
  private start = 0
  /** The file offset of `buffer[0]`. */
  private base = 0

  constructor(private readonly fd: number, private readonly file: string) {}

  get offset(): number { return this.base + this.start }

  fail(problem: string): never { throw invalidGguf(this.file, problem, this.offset) }

  private take(n: number): Buffer {
    if (this.start + n > this.buffer.length) {
      const rest = this.buffer.subarray(this.start)
      const chunk = Buffer.alloc(Math.max(CHUNK, n))
      const read = readSync(this.fd, chunk, 0, chunk.length, this.base + this.buffer.length)
      this.base += this.start
      this.buffer = Buffer.concat([rest, chunk.subarray(0, read)])
      this.start = 0
      if (n > this.buffer.length) this.fail(`the file ends inside the header (${n} bytes wanted)`)
    }
    const bytes = this.buffer.subarray(this.start, this.start + n)
    this.start += n
    return bytes
  }

  u8(): number { return this.take(1)[0] }
  u32(): number { return this.take(4).readUInt32LE(0) }
  u64(): bigint { return this.take(8).readBigUInt64LE(0) }
  count(what: string): number {
    const n = this.u64()
    if (n > BigInt(Number.MAX_SAFE_INTEGER)) this.fail(`${what} ${n} is too large`)
    return Number(n)
  }
  string(): string { return this.take(this.count('a string length')).toString('utf8') }

  value(type: number): GgufMetadataValue {
    switch (type) {
      case 0: return this.take(1).readUInt8(0)
      case 1: return this.take(1).readInt8(0)
      case 2: return this.take(2).readUInt16LE(0)
      case 3: return this.take(2).readInt16LE(0)
      case 4: return this.u32()
      case 5: return this.take(4).readInt32LE(0)
      case 6: return this.take(4).readFloatLE(0)
      case 7: return this.u8() !== 0
      case 8: return this.string()
      case 9: {
        const items = this.u32()
        const n = this.count('an array length')
        const out: GgufMetadataValue[] = []
        for (let i = 0; i < n; i++) out.push(this.value(items))
        return out
      }
      case 10: return this.u64()
      case 11: return this.take(8).readBigInt64LE(0)
      case 12: return this.take(8).readDoubleLE(0)
      default: return this.fail(`unknown value type ${type}`)
    }
  }
}

/** The header metadata of the GGUF file at `path`, in file order. Throws `WIRE_INVALID_GGUF` for a file that is not one. */
export function readGgufMetadata(path: string): Map<string, GgufMetadataValue> {
  let fd: number
  try {
    fd = openSync(path, 'r')
  } catch (error) {
    throw invalidGguf(path, `cannot open it (${(error as NodeJS.ErrnoException).code ?? String(error)})`, 0)
  }
  try {
    const reader = new Reader(fd, path)
    if (reader.u32() !== 0x46554747) reader.fail('the file does not start with "GGUF"')
    const version = reader.u32()
    if (version !== 2 && version !== 3) reader.fail(`version ${version} (dsh reads versions 2 and 3)`)
    reader.count('the tensor count')
    const entries = reader.count('the metadata count')
    const metadata = new Map<string, GgufMetadataValue>()
    for (let i = 0; i < entries; i++) {
      const key = reader.string()
      metadata.set(key, reader.value(reader.u32()))
    }
    return metadata
  } finally {
    closeSync(fd)
  }
}
