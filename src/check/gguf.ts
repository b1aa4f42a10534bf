// A model for llama.cpp that knows nothing: a GGUF v3 file (github.com/ggml-org/ggml docs/gguf.md)
// of a llama-architecture network with random weights. Under a grammar, llama.cpp's sampler picks
// among the tokens the grammar allows by these weights' whims, which is all the llama-cpp actor
// needs of a model: no trained weights, no download. Its vocabulary holds whole characters only:
// with byte tokens past 0x7f (halves of a character), llama.cpp b10257 wrote bytes its grammar
// does not allow (a member name "note\xfc\xa6"), a fault of the sampler, not of the form.
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { random } from './generate.ts'

/** The network's size: small enough to be written in a moment, read in one, and run fast. */
export const DIMENSIONS = { embedding: 64, heads: 2, feedForward: 128, layers: 1, context: 2048 } as const
/** The token ids of the vocabulary's specials: the byte b is token BYTE_BASE + b. */
export const UNKNOWN = 0
export const BOS = 1
export const EOS = 2
export const BYTE_BASE = 3
const ALIGNMENT = 32

// GGUF's value types (docs/gguf.md: gguf_metadata_value_type), ggml's type of a float tensor, and
// llama.cpp's token types (llama_token_type)
const VALUE = { u32: 4, i32: 5, f32: 6, bool: 7, string: 8, array: 9 } as const
const GGML_F32 = 0
const TOKEN = { normal: 1, unknown: 2, control: 3, byte: 6 } as const

type Value = { readonly u32: number } | { readonly f32: number } | { readonly bool: boolean } | string |
  { readonly strings: readonly string[] } | { readonly f32s: readonly number[] } | { readonly i32s: readonly number[] }

/** Little-endian bytes, appended. */
class Out {
  readonly #chunks: Buffer[] = []
  length = 0
  #push (buffer: Buffer): void {
    this.#chunks.push(buffer)
    this.length += buffer.length
  }

  u32 (n: number): void { const b = Buffer.alloc(4); b.writeUInt32LE(n); this.#push(b) }
  i32 (n: number): void { const b = Buffer.alloc(4); b.writeInt32LE(n); this.#push(b) }
  u64 (n: number): void { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(n)); this.#push(b) }
  f32 (n: number): void { const b = Buffer.alloc(4); b.writeFloatLE(n); this.#push(b) }
  string (s: string): void { const b = Buffer.from(s, 'utf8'); this.u64(b.length); this.#push(b) }
  raw (b: Buffer): void { this.#push(b) }
  pad (): void { this.#push(Buffer.alloc((ALIGNMENT - (this.length % ALIGNMENT)) % ALIGNMENT)) }
  bytes (): Buffer { return Buffer.concat(this.#chunks) }
}

function value (out: Out, v: Value): void {
  if (typeof v === 'string') {
    out.u32(VALUE.string)
    out.string(v)
  } else if ('u32' in v) {
    out.u32(VALUE.u32)
    out.u32(v.u32)
  } else if ('f32' in v) {
    out.u32(VALUE.f32)
    out.f32(v.f32)
  } else if ('bool' in v) {
    out.u32(VALUE.bool)
    out.raw(Buffer.from([v.bool ? 1 : 0]))
  } else {
    out.u32(VALUE.array)
    const [type, items, write] = 'strings' in v
      ? [VALUE.string, v.strings, (s: string) => out.string(s)] as const
      : 'f32s' in v ? [VALUE.f32, v.f32s, (n: number) => out.f32(n)] as const : [VALUE.i32, v.i32s, (n: number) => out.i32(n)] as const
    out.u32(type)
    out.u64(items.length)
    for (const item of items) (write as (item: unknown) => void)(item)
  }
}

/** Characters of two to four UTF-8 bytes, and the separators JavaScript once kept out of strings. */
export const WHOLE = ['é', 'á', 'ß', 'Ω', '中', '文', '\u2028', '\u2029', '😀', '🐲'] as const
/**
 * sentencepiece's space: llama.cpp's tokenizer writes each space of a text as U+2581 before it
 * looks the text up, and reads the token back as a space. Without it, a text with a space (a
 * prompt, or a body fed to the grammar) does not tokenize.
 */
export const SPACE = '\u2581'

/**
 * The vocabulary: three specials, the 128 one-byte characters as sentencepiece writes byte tokens,
 * then characters of several bytes, each a token of its own, and the space.
 */
export function vocabulary (): string[] {
  const bytes = Array.from({ length: 128 }, (_, b) => `<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`)
  return ['<unk>', '<s>', '</s>', ...bytes, ...WHOLE, SPACE]
}

/** Whether the model has tokens for every character of a text (any other is the unknown token). */
export const writable = (text: string): boolean => [...text].every((c) => (c.codePointAt(0) ?? 0) < 0x80 || (WHOLE as readonly string[]).includes(c))

/** The tensors of a llama network, each with its shape as ggml counts it (the row's length first). */
function tensors (): Array<[string, number[]]> {
  const { embedding: e, feedForward: f, layers } = DIMENSIONS
  const v = vocabulary().length
  const layer = (i: number): Array<[string, number[]]> => [
    [`blk.${i}.attn_norm.weight`, [e]],
    [`blk.${i}.attn_q.weight`, [e, e]],
    [`blk.${i}.attn_k.weight`, [e, e]],
    [`blk.${i}.attn_v.weight`, [e, e]],
    [`blk.${i}.attn_output.weight`, [e, e]],
    [`blk.${i}.ffn_norm.weight`, [e]],
    [`blk.${i}.ffn_gate.weight`, [e, f]],
    [`blk.${i}.ffn_up.weight`, [e, f]],
    [`blk.${i}.ffn_down.weight`, [f, e]]
  ]
  return [['token_embd.weight', [e, v]], ['output_norm.weight', [e]], ['output.weight', [e, v]], ...Array.from({ length: layers }, (_, i) => layer(i)).flat()]
}

/**
 * How the weights are made: at random from a seed, or so that the end token is the likeliest
 * whatever came before (every token's embedding one unit vector, every layer adding nothing, and
 * only the end token's output row reading it). Under a grammar, the second model ends as soon as
 * the grammar lets it: the tests' way of asking llama.cpp whether its grammar takes a text whole.
 */
export type Weights = number | 'ending'

// the ending model's end token leads every other by this much (its probability about 0.99)
const ENDING_LOGIT = 10

function ending (name: string, data: Float32Array): void {
  const e = DIMENSIONS.embedding
  if (name.endsWith('norm.weight')) data.fill(1)
  else if (name === 'token_embd.weight') for (let i = 0; i < data.length; i += e) data[i] = 1
  else if (name === 'output.weight') data[EOS * e] = ENDING_LOGIT / Math.sqrt(e)
}

/** The file's bytes: the same weights asked for, the same model. */
export function gguf (weights: Weights): Buffer {
  const { embedding, heads, feedForward, layers, context } = DIMENSIONS
  const tokens = vocabulary()
  const metadata: Array<[string, Value]> = [
    ['general.architecture', 'llama'],
    ['general.name', 'fastify-gpt random bytes'],
    ['general.alignment', { u32: ALIGNMENT }],
    ['llama.context_length', { u32: context }],
    ['llama.embedding_length', { u32: embedding }],
    ['llama.block_count', { u32: layers }],
    ['llama.feed_forward_length', { u32: feedForward }],
    ['llama.attention.head_count', { u32: heads }],
    ['llama.attention.head_count_kv', { u32: heads }],
    ['llama.rope.dimension_count', { u32: embedding / heads }],
    ['llama.attention.layer_norm_rms_epsilon', { f32: 1e-5 }],
    ['tokenizer.ggml.model', 'llama'],
    ['tokenizer.ggml.tokens', { strings: tokens }],
    ['tokenizer.ggml.scores', { f32s: tokens.map(() => 0) }],
    ['tokenizer.ggml.token_type', { i32s: tokens.map((_, id) => id === UNKNOWN ? TOKEN.unknown : id < BYTE_BASE ? TOKEN.control : id < BYTE_BASE + 128 ? TOKEN.byte : TOKEN.normal) }],
    ['tokenizer.ggml.unknown_token_id', { u32: UNKNOWN }],
    ['tokenizer.ggml.bos_token_id', { u32: BOS }],
    ['tokenizer.ggml.eos_token_id', { u32: EOS }],
    ['tokenizer.ggml.add_bos_token', { bool: true }],
    ['tokenizer.ggml.add_space_prefix', { bool: false }]
  ]
  const shapes = tensors()
  const out = new Out()
  out.raw(Buffer.from('GGUF', 'latin1'))
  out.u32(3)
  out.u64(shapes.length)
  out.u64(metadata.length)
  for (const [key, v] of metadata) {
    out.string(key)
    value(out, v)
  }
  let offset = 0
  for (const [name, shape] of shapes) {
    out.string(name)
    out.u32(shape.length)
    for (const n of shape) out.u64(n)
    out.u32(GGML_F32)
    out.u64(offset)
    offset += Math.ceil((shape.reduce((a, b) => a * b) * 4) / ALIGNMENT) * ALIGNMENT
  }
  out.pad()
  const next = weights === 'ending' ? undefined : random(weights)
  for (const [name, shape] of shapes) {
    const data = new Float32Array(shape.reduce((a, b) => a * b))
    if (next === undefined) ending(name, data)
    // norms at one, so the sums stay near the scale the weights give them
    else for (let i = 0; i < data.length; i++) data[i] = name.endsWith('norm.weight') ? 1 : (next() * 2 - 1) * 0.5
    out.raw(Buffer.from(data.buffer))
    out.pad()
  }
  return out.bytes()
}

/** Writes the model to a fresh temporary folder and answers the file's path. */
export function writeModel (weights: Weights): string {
  const file = join(mkdtempSync(join(tmpdir(), 'fastify-gpt-gguf-')), weights === 'ending' ? 'ending.gguf' : 'random-bytes.gguf')
  writeFileSync(file, gguf(weights))
  return file
}
