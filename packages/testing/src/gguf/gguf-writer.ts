/**
 * A GGUF (version 3) writer: metadata key/values and f32 tensors, laid out as the format specifies
 * (little-endian header, the key/values, the tensor infos, then each tensor's data aligned to
 * `general.alignment`, 32 bytes). Enough to write a small model llama.cpp loads; no quantised types.
 * Tensor data is written in the host's byte order: little-endian, as GGUF wants, on every machine Node
 * supports here (x86-64, arm64).
 * @module
 */

/** A metadata value: its GGUF type is taken from the wrapper. */
export type GgufValue =
  | { type: 'string'; value: string }
  | { type: 'uint32'; value: number }
  | { type: 'int32'; value: number }
  | { type: 'float32'; value: number }
  | { type: 'bool'; value: boolean }
  | { type: 'string[]'; value: readonly string[] }
  | { type: 'int32[]'; value: readonly number[] }

/** An f32 tensor: `shape` in GGUF order (the first dimension varies fastest). */
export interface GgufTensor {
  name: string
  shape: readonly number[]
  data: Float32Array
}

import { tensorShape } from '../errors.js'

const TYPE = { uint32: 4, int32: 5, float32: 6, bool: 7, string: 8, array: 9 } as const
const GGML_F32 = 0
const ALIGNMENT = 32

/** Grows as it is written to. */
class Bytes {
  private buffer = Buffer.alloc(1 << 16)
  length = 0

  private room(n: number): void {
    if (this.length + n <= this.buffer.length) return
    const next = Buffer.alloc(Math.max(this.buffer.length * 2, this.length + n))
    this.buffer.copy(next, 0, 0, this.length)
    this.buffer = next
  }

  u32(value: number): void { this.room(4); this.buffer.writeUInt32LE(value, this.length); this.length += 4 }
  i32(value: number): void { this.room(4); this.buffer.writeInt32LE(value, this.length); this.length += 4 }
  u64(value: number): void { this.room(8); this.buffer.writeBigUInt64LE(BigInt(value), this.length); this.length += 8 }
  f32(value: number): void { this.room(4); this.buffer.writeFloatLE(value, this.length); this.length += 4 }
  u8(value: number): void { this.room(1); this.buffer[this.length++] = value }
  string(value: string): void {
    const bytes = Buffer.from(value, 'utf8')
    this.u64(bytes.length)
    this.raw(bytes)
  }
  raw(bytes: Uint8Array): void { this.room(bytes.length); this.buffer.set(bytes, this.length); this.length += bytes.length }
  pad(): void { while (this.length % ALIGNMENT) this.u8(0) }
  result(): Buffer { return this.buffer.subarray(0, this.length) }
}

function writeValue(out: Bytes, value: GgufValue): void {
  switch (value.type) {
    case 'string': out.u32(TYPE.string); out.string(value.value); break
    case 'uint32': out.u32(TYPE.uint32); out.u32(value.value); break
    case 'int32': out.u32(TYPE.int32); out.i32(value.value); break
    case 'float32': out.u32(TYPE.float32); out.f32(value.value); break
    case 'bool': out.u32(TYPE.bool); out.u8(value.value ? 1 : 0); break
    case 'string[]':
      out.u32(TYPE.array); out.u32(TYPE.string); out.u64(value.value.length)
      for (const item of value.value) out.string(item)
      break
    case 'int32[]':
      out.u32(TYPE.array); out.u32(TYPE.int32); out.u64(value.value.length)
      for (const item of value.value) out.i32(item)
      break
  }
}

/** The GGUF file of `metadata` (in order) and `tensors`. */
export function writeGguf(metadata: ReadonlyArray<readonly [string, GgufValue]>, tensors: readonly GgufTensor[]): Buffer {
  const out = new Bytes()
  out.raw(Buffer.from('GGUF', 'ascii'))
  out.u32(3)
  out.u64(tensors.length)
  out.u64(metadata.length)
  for (const [key, value] of metadata) {
    out.string(key)
    writeValue(out, value)
  }
  let offset = 0
  for (const tensor of tensors) {
    const elements = tensor.shape.reduce((a, b) => a * b, 1)
    if (elements !== tensor.data.length) throw tensorShape(tensor.name, tensor.shape, tensor.data.length)
    out.string(tensor.name)
    out.u32(tensor.shape.length)
    for (const dim of tensor.shape) out.u64(dim)
    out.u32(GGML_F32)
    out.u64(offset)
    offset += Math.ceil((elements * 4) / ALIGNMENT) * ALIGNMENT
  }
  out.pad()
  for (const tensor of tensors) {
    out.raw(new Uint8Array(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength))
    out.pad()
  }
  return out.result()
}
