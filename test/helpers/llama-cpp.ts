// llama.cpp's own converter and grammar (@fugood/llama.node), for the tests: whether the grammar
// json_schema_to_grammar makes of a form accepts a text. There is no call for it in the binding;
// a completion given the text as generation_prompt has the grammar sampler accept the text's
// tokens (llama_grammar_accept_impl), which throws at a token it refuses; the model made to end
// whenever it may (src/check/gguf.ts, 'ending') then samples the end token exactly when the
// grammar takes the text whole. (The binding reads no logit_bias, so the end cannot be favoured
// by a random model's completion.) A text the model cannot spell is not asked.
// The converter refuses a form by aborting, so the asking runs in a process of its own
// (llama-cpp-process.ts), one kept for the run and made again when a form ends it.
import { fork, type ChildProcess } from 'node:child_process'
import { readFileSync, rmSync } from 'node:fs'
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Json } from '../../src/form/compile.ts'
import { writable, writeModel } from '../../src/check/gguf.ts'
import { refusal } from '../../src/check/llama-decoder.ts'
import type { Answer, Ask } from './llama-cpp-process.ts'
import type { Converter } from './lint-check.ts'
import { need } from './test-packages.js'

need('@fugood/llama.node')
const CHILD = fileURLToPath(new URL('./llama-cpp-process.ts', import.meta.url))
const model = writeModel('ending')
process.once('exit', () => rmSync(dirname(model), { recursive: true, force: true }))

// the tokenizer reads these as the specials they name, not as the characters they are
const SPECIALS = /<unk>|<s>|<\/s>/
/** Whether the made model writes the text token by token, each token one of its characters. */
export const spellable = (text: string): boolean => writable(text) && !SPECIALS.test(text)

// An ask that runs past this, or in which the process grows by more than this, is ended (a form
// can make the grammar take memory without end, as minLength above maxLength does, at about
// 150 MiB a second): the form is refused. One ask of a batch keeps at most 64 contexts of about
// 2 MiB (llama-cpp-process.ts); the process starts at about 100 MiB.
const TIMEOUT_MS = 20_000
const GROWTH_MB = 256
const STARTING_MB = 128
const resident = (pid: number | undefined): number => {
  try {
    return Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]) * 4096 / 2 ** 20
  } catch {
    return 0
  }
}

let child: ChildProcess | undefined
let said = ''
let queue: Promise<unknown> = Promise.resolve()

function ask (question: Ask): Promise<Answer> {
  const asked = queue.then(() => new Promise<Answer>((resolve) => {
    const limit = Math.max(resident(child?.pid), STARTING_MB) + GROWTH_MB
    const process = child ??= fork(CHILD, [], { silent: true, execArgv: [...globalThis.process.execArgv] })
    process.stdout?.resume()
    process.stderr?.removeAllListeners('data').on('data', (chunk: Buffer) => { said = (said + chunk.toString()).slice(-8192) })
    let stopped: string | undefined
    const stop = (why: string): void => {
      stopped = why
      process.kill('SIGKILL')
    }
    const timer = setTimeout(() => stop(`llama.cpp did not answer within ${TIMEOUT_MS} ms`), TIMEOUT_MS)
    const watch = setInterval(() => { if (resident(process.pid) > limit) stop(`llama.cpp grew by more than ${GROWTH_MB} MiB in one ask`) }, 50)
    const settled = (): void => {
      clearTimeout(timer)
      clearInterval(watch)
    }
    const answered = (answer: Answer): void => {
      settled()
      process.off('exit', ended)
      if (answer.ending === true) close()
      resolve(answer)
    }
    const ended = (): void => {
      settled()
      process.off('message', answered)
      child = undefined
      resolve({ error: stopped ?? refusal(said) ?? `llama.cpp's process ended: ${said.slice(-300)}` })
      said = ''
    }
    process.once('message', answered).once('exit', ended)
    said = ''
    process.send({ ...question, model })
  }))
  queue = asked
  return asked
}

/** A form as llama.cpp converts it: its grammar, or the converter's or the grammar parser's words for refusing it. */
export interface Grammar { readonly form: Json }
export async function compile (form: Json): Promise<{ grammar: Grammar } | { error: unknown }> {
  const answer = await ask({ form, texts: ['{'] })
  return 'error' in answer ? answer : { grammar: { form } }
}

/** For each text, whether the grammar accepts it whole; undefined for a text the made model cannot spell. */
export async function verdicts ({ form }: Grammar, texts: readonly string[]): Promise<Array<boolean | undefined>> {
  const asked = texts.filter(spellable)
  const answer = await ask({ form, texts: asked })
  if ('error' in answer) throw new Error(answer.error)
  const by = new Map(asked.map((text, i) => [text, answer.verdicts[i]]))
  return texts.map((text) => by.get(text))
}

/** Whether the grammar accepts the whole text (a text the model cannot spell is not accepted). */
export const accepts = async (grammar: Grammar, text: string): Promise<boolean> => (await verdicts(grammar, [text]))[0] === true

/** Nothing is held for a grammar between asks. */
export const release = (_grammar: Grammar): void => {}

/** Ends the asking process, so that a test file's process can end. */
export const close = (): void => {
  child?.kill()
  child = undefined
}

/** llama.cpp, as test/helpers/lint-check.ts holds lint's llama-cpp profile to it; a text the model cannot spell is not accepted. */
export const LLAMA_CPP: Converter<Grammar> = {
  decoder: 'llama-cpp',
  nearMisses: 400,
  batch: 64,
  // _build_object_rule: the required properties, then the optional ones, each in `properties` order
  requiredFirst: true,
  compile,
  accepts: async (grammar, texts) => (await verdicts(grammar, texts)).map((v) => v === true),
  release
}
