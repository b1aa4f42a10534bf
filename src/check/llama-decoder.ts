import { fork } from 'node:child_process'
import { readFile, rmSync } from 'node:fs'
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { writeModel } from './gguf.ts'
import type { Walked } from './types.ts'

// The llama-cpp actor's bodies, from a process bounded in time and memory: llama.cpp is native
// code, which a thread cannot bound (an abort ends every thread; a call runs on past terminate()).
// Its memory is what the system says it holds (Linux's /proc), its words are its stderr.

const here = import.meta.url
const CHILD = fileURLToPath(new URL(here.endsWith('.ts') ? './llama-decoder-process.ts' : './llama-decoder-process.js', here))
/** Resident memory the process may hold, in MiB, and how often it is looked at. */
export const MEMORY_MB = 1024
const WATCH_MS = 50
const HEAP_MB = 256
const PAGE = 4096
// The seed of the model made when none is given: one model, whatever the run's seed.
const MODEL_SEED = 1
const KEPT = 64 * 1024

export interface LlamaTask {
  readonly form: unknown
  readonly bodies: number
  readonly seed: number
  readonly maxTokens: number
  /** A GGUF file to sample with; default, a model of random weights made for the run (gguf.ts). */
  readonly model?: string
}

/**
 * llama.cpp's words for refusing a form, from what the process wrote as it ended: the converter's
 * exception (it ends the process) or the grammar parser's error.
 */
export function refusal (said: string): string | undefined {
  const thrown = /what\(\): {2}([\s\S]*)$/.exec(said)?.[1]
  if (thrown !== undefined) return thrown.trim().split('\n').join(' ')
  return /error parsing grammar: (.*)/.exec(said)?.[1]
}

/** Bodies llama.cpp writes for `form`, or why it wrote none: it refused the form, time or memory ran out. */
export function decodeLlama (task: LlamaTask, timeout: number, memoryMb = MEMORY_MB): Promise<Walked> {
  const model = task.model ?? writeModel(MODEL_SEED)
  return new Promise((resolve) => {
    const child = fork(CHILD, [], { silent: true, execArgv: [...process.execArgv, `--max-old-space-size=${HEAP_MB}`] })
    let said = ''
    let reply: Walked | undefined
    let stopped: string | undefined
    const stop = (why: string): void => {
      stopped ??= why
      child.kill('SIGKILL')
    }
    child.stdout?.resume()
    child.stderr?.on('data', (chunk: Buffer) => { said = (said + chunk.toString()).slice(-KEPT) })
    child.on('message', (message: Walked) => { reply = message })
    const timer = setTimeout(() => stop(`the decoder wrote no bodies within ${timeout} ms`), timeout)
    const watch = setInterval(() => readFile(`/proc/${child.pid}/statm`, 'utf8', (error, text) => {
      if (error === null && Number(text.split(' ')[1]) * PAGE > memoryMb * 2 ** 20) stop(`the decoder held more than ${memoryMb} MiB`)
    }), WATCH_MS)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      clearInterval(watch)
      if (task.model === undefined) rmSync(dirname(model), { recursive: true, force: true })
      const unloaded = /error loading model: (.*)/.exec(said)?.[1]
      const why = stopped ?? (unloaded === undefined ? refusal(said) : `the model at ${model} did not load: ${unloaded}`)
      if (reply !== undefined && !('error' in reply)) resolve(reply)
      else resolve({ error: why ?? (reply as { error: string } | undefined)?.error ?? `the decoder's process ended (${signal ?? `exit ${String(code)}`})` })
    })
    child.send({ ...task, model })
  })
}
