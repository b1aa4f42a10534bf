import { Worker } from 'node:worker_threads'
import * as errors from '../../errors.ts'
import type { Settings } from '../options.ts'

/**
 * How long a stored edition may take to build in the judge before it is stopped and refused. The
 * address builds an accepted one again on its own thread, so this is also about the longest a
 * stored edition can hold up requests there.
 */
export const JUDGE_TIMEOUT = 2_000
/** The judge's heap: an edition that needs more is refused, and the process keeps its memory. */
const JUDGE_HEAP_MB = 512

/** The settings an edition is built with, less what cannot cross to a worker (functions, the client). */
export type PortableSettings = Omit<Settings, 'content' | 'act' | 'review' | 'rateLimit' | 'html' | 'onAddress' | 'share' | 'links'> & { html: boolean }

export function portable (settings: Settings): PortableSettings {
  const { content, act, review, rateLimit, html, onAddress, share, links, ...rest } = settings
  const data = Object.fromEntries(Object.entries(rest).filter(([, value]) => typeof value !== 'function'))
  // A host's own page function cannot run there; its cost is the host's own, not the form's.
  return { ...data, html: html === true } as PortableSettings
}

export interface JudgeJob { readonly id: number, readonly settings: PortableSettings, readonly text: string, readonly version: number }
export type JudgeVerdict = { readonly id: number, readonly ok: true } | { readonly id: number, readonly ok: false, readonly code: string | undefined, readonly message: string }

// Under the test loader the sources run as .ts; built, as .js beside this file.
const WORKER = new URL(`./worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url)

/**
 * Builds editions read from Redis in a worker thread, one at a time, before the address builds
 * them itself: whatever a stored form costs (its numbers, its size) is paid there, where it can be
 * stopped, while the address's own thread goes on answering. One worker per process, started when
 * the first shared address starts and stopped with the last.
 */
class Judge {
  #worker: Promise<Worker> | undefined
  #users = 0
  #queue: Promise<unknown> = Promise.resolve()
  #next = 1

  acquire (): void { this.#users++ }

  release (): void {
    if (--this.#users === 0) this.#stop()
  }

  /** Resolves if `text` builds into an edition within JUDGE_TIMEOUT; rejects with the named error that refuses it. */
  judge (path: string, settings: PortableSettings, text: string, version: number): Promise<void> {
    const run = this.#queue.then(() => this.#run({ id: this.#next++, settings, text, version }, path))
    this.#queue = run.catch(() => {})
    return run
  }

  async #run (job: JudgeJob, path: string): Promise<void> {
    let worker: Worker
    try {
      worker = await this.#start()
    /* c8 ignore next 4: the judge's own module failing to load (a broken install) is the only way here; an edition is then refused by name rather than built unjudged */
    } catch (error) {
      this.#stop()
      throw new errors.GPT_ERR_EDITION_REFUSED(path, `it could not be judged: ${error instanceof Error ? error.message : String(error)}`)
    }
    const verdict = await new Promise<JudgeVerdict | Error>((resolve) => {
      const settle = (outcome: JudgeVerdict | Error): void => {
        clearTimeout(timer)
        worker.off('message', onMessage)
        worker.off('error', onError)
        worker.off('exit', onExit)
        resolve(outcome)
      }
      const onMessage = (verdict: JudgeVerdict): void => { if (verdict.id === job.id) settle(verdict) }
      const onError = (error: Error): void => { settle(error) }
      const onExit = (): void => { settle(new Error('the judge stopped')) }
      const timer = setTimeout(() => { settle(new Error(`building it took more than ${JUDGE_TIMEOUT} ms, so it was stopped`)) }, JUDGE_TIMEOUT)
      worker.on('message', onMessage)
      worker.on('error', onError)
      worker.on('exit', onExit)
      worker.postMessage(job)
    })
    if (verdict instanceof Error) {
      this.#stop() // a worker stopped in the middle of a build is not reused
      throw new errors.GPT_ERR_EDITION_REFUSED(path, `edition ${job.version}: ${verdict.message}`)
    }
    if (!verdict.ok) throw named(verdict.code, verdict.message)
  }

  #start (): Promise<Worker> {
    this.#worker ??= new Promise<Worker>((resolve, reject) => {
      const worker = new Worker(WORKER, { resourceLimits: { maxOldGenerationSizeMb: JUDGE_HEAP_MB } })
      worker.unref() // never what keeps a process alive
      worker.once('message', () => { worker.off('error', reject); resolve(worker) }) // its first message: loaded
      worker.once('error', reject)
    })
    return this.#worker
  }

  #stop (): void {
    const worker = this.#worker
    this.#worker = undefined
    worker?.then((w) => w.terminate(), () => {}).catch(() => {})
  }
}

/** The error the judge refused an edition with, as the named error it was. */
function named (code: string | undefined, message: string): Error {
  const Named = (errors as Record<string, unknown>)[code ?? ''] as (new (a: string, b: string) => Error) | undefined
  const error = typeof Named === 'function' && code?.startsWith('GPT_ERR_') === true ? new Named('', '') : new Error()
  error.message = message
  return error
}

export const judge = new Judge()
