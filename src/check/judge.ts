import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads'
import type { Message, Reply } from './judge-worker.ts'
import type { FormSummary } from './types.ts'
import type { DecoderName, Finding } from '../lint/index.ts'

// The checker's own verdicts, from @cfworker/json-schema: an implementation independent of the
// Ajv that fastify-gpt enforces forms with, so that a fault of either shows as a disagreement.
//
// That validator decides by recursion and backtracking, so a form can make one verdict take
// forever or overflow the stack (the address decides the same form in bounded time). It runs in
// a worker thread with its own heap and a large stack; each verdict is awaited synchronously
// (Atomics.wait) for a bounded time; a verdict that does not come ends the worker, and every check
// that needs one from then on is skipped, saying why.

export interface Verdict {
  readonly valid: boolean
  /** The keywords that failed, wrappers (properties, items, $ref...) left out. */
  readonly keywords: ReadonlySet<string>
  /** Where the keywords that failed are in s, wrappers included, as JSON Pointers along the way the validator went (through each `$ref`). */
  readonly locations: readonly string[]
}

/** Whether s admits a value; undefined when the judge could not tell (see `Judge.why`). */
export type Admits = (value: unknown) => Verdict | undefined

export const DEFAULT_JUDGE_TIMEOUT = 5000
/** Starting a thread and loading the validator is no verdict: it gets its own, longer, wait. */
const START = 60_000
/** The linter, loaded at its first use, gets at least this long. */
const LINT_TIMEOUT = 20_000
const HEAP_MB = 256
const STACK_MB = 256

const here = import.meta.url
const WORKER = new URL(here.endsWith('.ts') ? './judge-worker.ts' : './judge-worker.js', here)

/** A thread running the validator; one is kept between runs, idle, so that a run does not pay for starting it. */
interface Thread {
  readonly worker: Worker
  readonly port: MessagePort
  readonly flag: Int32Array
}

let idle: Thread | undefined

function start (): Thread {
  const { port1, port2 } = new MessageChannel()
  const flag = new Int32Array(new SharedArrayBuffer(4))
  const worker = new Worker(WORKER, {
    workerData: { port: port2, flag },
    transferList: [port2],
    resourceLimits: { maxOldGenerationSizeMb: HEAP_MB, stackSizeMb: STACK_MB },
    stdout: true,
    stderr: true
  })
  // an idle thread never keeps the process alive; an error of it (out of memory) shows as a verdict that does not come
  worker.unref()
  worker.on('error', () => {})
  return { worker, port: port1, flag }
}

export class Judge {
  /** Why it gives no more verdicts, once it does not. */
  why: string | undefined
  /** Whether s is a valid 2020-12 schema (draft §4): why not, if not; undefined if it is or `why` is set. */
  readonly problem: string | undefined
  readonly #timeout: number
  #thread: Thread | undefined

  constructor (form: object, timeout = DEFAULT_JUDGE_TIMEOUT) {
    this.#timeout = timeout
    const reused = idle
    idle = undefined
    this.#thread = reused ?? start()
    const ready = reused !== undefined || this.#call({ kind: 'hello' }, START) !== undefined
    const reply = ready ? this.#call({ kind: 'form', form }, this.#timeout) : undefined
    this.problem = reply?.kind === 'form' ? reply.problem : undefined
  }

  /** The judge of values for s: whether s admits one, and what refused it. */
  readonly admits: Admits = (value) => {
    const reply = this.#call({ kind: 'judge', value }, this.#timeout)
    return reply?.kind === 'verdict' ? { valid: reply.valid, keywords: new Set(reply.keywords), locations: reply.locations } : undefined
  }

  /** lint's findings for s, for these decoders only, within the linter's bound; undefined if they did not come. */
  findings (decoders: readonly DecoderName[]): readonly Finding[] | undefined {
    const reply = this.#call({ kind: 'findings', decoders }, Math.max(this.#timeout, LINT_TIMEOUT))
    return reply?.kind === 'findings' ? reply.findings : undefined
  }

  /**
   * What `fastify-gpt lint` says of s, from the same thread within the same bound: advice, so a
   * linter that takes too long leaves the report without it. Ends this judge's verdicts.
   */
  summary (): FormSummary | undefined {
    const reply = this.#call({ kind: 'lint' }, Math.max(this.#timeout, LINT_TIMEOUT))
    return reply?.kind === 'lint' ? reply.summary : undefined
  }

  #call (message: Message, timeout: number): Reply | undefined {
    const thread = this.#thread
    if (this.why !== undefined || thread === undefined) return undefined
    Atomics.store(thread.flag, 0, 0)
    thread.port.postMessage(message)
    Atomics.wait(thread.flag, 0, 0, timeout)
    const reply = receiveMessageOnPort(thread.port)?.message as Reply | undefined
    if (reply === undefined) {
      this.stop(`the independent validator gave no verdict within ${timeout} ms`)
      return undefined
    }
    if (reply.kind === 'error') {
      this.stop(`the independent validator could not judge: ${reply.message}`)
      return undefined
    }
    return reply
  }

  /** No more verdicts, for a reason: the thread is ended (it may be busy still). */
  stop (why: string): void {
    this.why ??= why
    const thread = this.#thread
    this.#thread = undefined
    if (thread === undefined) return
    thread.port.close()
    thread.worker.terminate().catch(() => {})
  }

  /** Done judging: a thread that is well is kept for the next run. */
  release (): void {
    const thread = this.#thread
    this.#thread = undefined
    if (thread === undefined) return
    if (idle === undefined) idle = thread
    else {
      thread.port.close()
      thread.worker.terminate().catch(() => {})
    }
  }
}
