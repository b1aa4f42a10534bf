// llama.cpp (@fugood/llama.node), behind one door: the checker's llama-cpp actor and the tests load
// it here and nowhere else. It is an optional peer dependency (docs/decisions.md): absent, the
// actor says so and nothing else changes. What it touches of the package: `lib/index.js`
// (loadModel, and a context's completion and release), its `package.json` (the version) and
// `lib/version.js` (the llama.cpp build). A completion given `response_format.json_schema` has
// llama.cpp's own json_schema_to_grammar (common/json-schema-to-grammar.cpp) convert the form, as
// llama-server and Ollama's GGUF runner do, and its grammar sampler (src/llama-grammar.cpp) hold
// each token to the grammar.
import { createRequire } from 'node:module'
import type { Walked } from './types.ts'

const PACKAGE = '@fugood/llama.node'
const require = createRequire(import.meta.url)

/** Said in one line when the package is not installed. */
export const MISSING = `the llama-cpp actor needs ${PACKAGE}, which is not installed: npm install ${PACKAGE}`

export interface Completion {
  readonly text: string
  readonly stopped_eos: boolean
}
export interface Context {
  completion: (options: Readonly<Record<string, unknown>>) => Promise<Completion>
  release: () => Promise<void>
}
/** What an actor may use of the package. */
export interface Llama {
  loadModel: (options: Readonly<Record<string, unknown>>) => Promise<Context>
}

/** The package's name and version, and the llama.cpp build it ships; undefined when it is not installed. */
export function installed (): string | undefined {
  try {
    const { version } = require(`${PACKAGE}/package.json`) as { version: string }
    const build = require(`${PACKAGE}/lib/version.js`) as { BUILD_NUMBER: string, BUILD_COMMIT: string }
    return `${PACKAGE} ${version} (llama.cpp b${build.BUILD_NUMBER}, ${build.BUILD_COMMIT})`
    /* c8 ignore next 3: reached only where the optional peer is not installed, and the tests run with it installed (npm run setup:test) */
  } catch {
    return undefined
  }
}

/** The package, loaded. */
export function load (): Llama {
  return require(PACKAGE) as Llama
}

// Sampled as llama-server samples by default (temperature 0.8, top-k 40, top-p 0.95, min-p 0.05),
// one thread, so that a seed writes the same body again.
const MODEL = { n_ctx: 2048, n_threads: 1, n_gpu_layers: 0, use_mmap: false } as const
const SAMPLING = { temperature: 0.8, top_k: 40, top_p: 0.95, min_p: 0.05 } as const
const PROMPT = 'JSON:\n'
// common_sampler_init's words when the converter's grammar does not parse: the form is refused
export const UNPARSED = 'failed to parse grammar'
// The binding's words for a context still marked busy: a completion that ends before the binding
// has noted how to end it (a fast one, or one that failed) leaves that mark for good.
const BUSY = 'Another completion is in progress'
const RETRIES = 3

export interface SampleOptions {
  /** Random numbers in [0, 1): seeded, each body's sampler seeded from them. */
  readonly next: () => number
  readonly bodies: number
  /** A body still going at this many tokens is dropped. */
  readonly maxTokens: number
}

/**
 * An actor under llama.cpp: the model at `model` writes bodies, each token held to the grammar
 * llama.cpp's converter makes of the form. A walk the sampler gives up on (it took a token its
 * grammar then refused) leaves the context busy for good (the binding's), so another is made;
 * the sampling runs in a process of its own (llama-decoder.ts), which ends with it.
 */
export async function sample (llama: Llama, model: string, form: unknown, options: SampleOptions): Promise<Walked> {
  const open = (): Promise<Context> => llama.loadModel({ model, ...MODEL })
  let context = await open()
  const failed: Context[] = []
  const texts: string[] = []
  let dropped = 0
  let gaveUp: { count: number, why: string } | undefined
  try {
    for (let n = 0, busy = 0; n < options.bodies; n++) {
      const seed = Math.floor(options.next() * 2 ** 31)
      let done: Completion
      try {
        done = await context.completion({
          prompt: PROMPT,
          response_format: { type: 'json_schema', json_schema: { schema: form } },
          seed,
          n_predict: options.maxTokens,
          ...SAMPLING
        })
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error)
        if (why === UNPARSED) return { error: why }
        // Not released: the binding leaves a failed context pointing at its freed worker, and
        // release() writes through that pointer. It is kept until the process ends.
        failed.push(context)
        context = await open()
        // the same body again, on a fresh context, when the old one was only marked busy
        if (why === BUSY && busy++ < RETRIES) n--
        else gaveUp = { count: (gaveUp?.count ?? 0) + 1, why: gaveUp?.why ?? why }
        continue
      }
      busy = 0
      if (done.stopped_eos) texts.push(done.text)
      else dropped++
    }
  } finally {
    await context.release()
  }
  return { texts, dropped, ...(gaveUp === undefined ? {} : { gaveUp }) }
}
