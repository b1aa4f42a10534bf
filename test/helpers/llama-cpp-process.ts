// llama.cpp's own acceptance check, in a process of its own (test/helpers/llama-cpp.ts says why
// and how): a completion whose generation_prompt is the text has the grammar sampler accept the
// text's tokens one by one, as llama.cpp's common_sampler_init does with a prefill; a token the
// grammar refuses throws, and a text the grammar takes whole lets the made model end next.
import { load, type Context } from '../../src/check/llama-cpp.ts'

export interface Ask { readonly form: unknown, readonly texts: readonly string[] }
/** One verdict a text: accepted whole, or not. */
export type Answer = ({ readonly verdicts: boolean[] } | { readonly error: string }) & { readonly ending?: true }

const BUSY = 'Another completion is in progress'
const REFUSED = 'std::exception'
// Contexts a completion failed in are kept, never released (below); past this many the process
// answers and ends, and the asker makes another.
const POISONED = 200
const llama = load()
let model = ''
let context: Context | undefined
const kept: Context[] = []

const open = async (): Promise<Context> => (context ??= await llama.loadModel({ model, n_ctx: 64, n_batch: 64, n_ubatch: 64, n_threads: 1, n_gpu_layers: 0, use_mmap: false }))
// A completion that fails in llama.cpp, or ends before the binding notes its end, leaves the
// binding pointing at its freed worker; release() writes through that pointer. Such a context is
// kept as it is, and another opened.
const poisoned = (): void => {
  if (context !== undefined) kept.push(context)
  context = undefined
}

async function verdict (form: unknown, text: string): Promise<boolean> {
  for (let tries = 0; ; tries++) {
    try {
      const done = await (await open()).completion({
        prompt: 'JSON:\n',
        generation_prompt: text,
        response_format: { type: 'json_schema', json_schema: { schema: form } },
        n_predict: 1,
        temperature: 0
      })
      return done.stopped_eos && done.text === ''
    } catch (error) {
      poisoned()
      const why = error instanceof Error ? error.message : String(error)
      if (why === REFUSED) return false
      if (why !== BUSY || tries === 3) throw error
    }
  }
}

async function answer (form: unknown, texts: readonly string[]): Promise<Answer> {
  const verdicts: boolean[] = []
  try {
    for (const text of texts) verdicts.push(await verdict(form, text))
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) }
  }
  return { verdicts }
}

process.on('message', ({ model: path, form, texts }: Ask & { readonly model: string }) => {
  model = path
  answer(form, texts).then((a) => process.send?.(kept.length > POISONED ? { ...a, ending: true } : a), () => process.exit(1))
})
