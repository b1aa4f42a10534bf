import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Act, Settings } from '../address/options.ts'
import { isThenable, LATE, within } from '../address/settle.ts'
import { LazyContext } from './context.ts'
import { drain, isProgressing } from './iterable.ts'
import type { Job } from './job.ts'
import { preferences } from './prefer.ts'
import type { BackgroundSettings } from './settings.ts'
import type { JobStore } from './store.ts'

type CoreAct = Settings['act']

/** Where an address's job addresses live: `<address>/jobs/<id>`. */
export function jobsPath (address: string): string {
  return `${address === '/' ? '' : address}/jobs`
}

/**
 * The act as the core calls it, without `background`: the option's act given a context, and an
 * async iterable it returns drained (its yields dropped, its return the result). A plain result
 * goes back as it came, so the answer is the same bytes as ever.
 */
export function drainingAct (settings: Settings): CoreAct {
  const act = settings.act as unknown as Act
  const { actTimeout } = settings
  return function onAct (body, request, reply) {
    const context = new LazyContext()
    const result = act(body, request, reply, context)
    if (!isProgressing(result)) return result
    const stop = (): boolean => context.aborted
    const drained = drain(result, () => {}, stop)
    if (actTimeout === undefined) return drained
    // The core answers 503 at actTimeout; the act is told to stop then, and is pulled no more.
    within(drained, actTimeout).then((value) => {
      if (value === LATE) context.abort(new Error('the act ran past actTimeout'))
    }, () => {}) // its failure is the core's to answer, from `drained`
    return drained
  }
}

/** What an act's answer becomes once it is a job: the handle, its header fields, and the job. */
export interface Handle {
  readonly href: string
  readonly p: string
  readonly rel: 'monitor'
  readonly status: 'working'
  readonly events: string
}

/**
 * The act as the core calls it, with `background`: an act that answers within `after` ms (or the
 * client's `Prefer: wait`) answers as ever; one still running then becomes a job, and the request
 * is answered with the job address's handle (docs/jobs.md). `maxJobs` held: 503 and nothing runs.
 */
export function backgroundAct (settings: Settings, background: BackgroundSettings, store: JobStore): CoreAct {
  const act = settings.act as unknown as Act
  const { actTimeout } = settings
  const base = jobsPath(settings.path)
  return function onAct (body, request: FastifyRequest, reply: FastifyReply) {
    if (!store.reserve()) {
      request.log.warn('gpt: act refused, maxJobs reached')
      reply.code(503).header('retry-after', String(store.retryAfter())).send()
      return undefined
    }
    const context = new LazyContext()
    let result: unknown
    let progressing: boolean
    try {
      result = act(body, request, reply, context)
      progressing = isProgressing(result)
      if (!progressing && !isThenable(result)) {
        store.release()
        return result // answered at once: as it is without background
      }
    } catch (error) {
      store.release()
      throw error
    }

    const started = store.clock.now()
    const prefer = preferences(request.headers.prefer)
    const wait = prefer.async ? 0 : Math.min(background.after, prefer.wait ?? Infinity)
    // Progress before the hand-off is kept, so the job's history starts where the act did.
    const early: unknown[] = []
    let job: Job | undefined
    const onProgress = (value: unknown): void => {
      if (job === undefined) early.push(value)
      else job.progress(value)
    }
    const stopped = (): boolean => job?.done === true
    const settled: Promise<unknown> = progressing
      ? drain(result as AsyncIterable<unknown>, onProgress, stopped)
      : Promise.resolve(result)

    return new Promise((resolve, reject) => {
      let handedOff = false
      const handOff = (): void => {
        handedOff = true
        if (reply.sent) { // the act answered by itself: nothing to hand off
          store.release()
          resolve(undefined)
          return
        }
        job = store.admit(started)
        const current = job
        // With `share`: stored in Redis before its first event, and before the handle names it.
        const announced = store.announce(current)
        // Its signal is the job's: aborted on cancel and on actTimeout, never on a disconnect.
        current.controller.signal.addEventListener('abort', () => { context.abort(current.controller.signal.reason) }, { once: true })
        for (const value of early) current.progress(value)
        early.length = 0
        if (actTimeout !== undefined) {
          const cancelTimer = store.clock.after(actTimeout - (store.clock.now() - started), () => {
            if (current.fail(store.clock.now())) request.log.warn('gpt: job ran past actTimeout')
          })
          current.subscribe((event) => { if (event.status !== 'working') cancelTimer() })
        }
        const href = `${base}/${current.id}`
        reply.header('link', `<${href}>; rel="monitor"`).header('cache-control', 'no-store')
        if (prefer.async) reply.header('preference-applied', 'respond-async')
        const handle: Handle = {
          href,
          p: 'The act goes on at this job address: GET it for its state, progress and result; its events stream as NDJSON at "events".',
          rel: 'monitor',
          status: 'working',
          events: `${href}/events`
        }
        if (announced === undefined) {
          resolve(handle)
          return
        }
        announced.then((readable) => {
          if (readable) {
            resolve(handle)
            return
          }
          // No instance could read the job: it is not run on (its signal aborted), and the
          // request is answered as when Redis is away for anything else.
          current.fail(store.clock.now())
          store.forget(current.id)
          reply.removeHeader('link').removeHeader('preference-applied').code(503).header('retry-after', String(store.retryAfter())).send()
          resolve(undefined)
        }, reject)
      }
      const cancelWait = wait === 0 ? undefined : store.clock.after(wait, handOff, true)
      if (wait === 0) handOff()
      settled.then((value) => {
        if (!handedOff) { // answered within its request, as without background
          cancelWait?.()
          store.release()
          resolve(value)
          return
        }
        job?.complete(value, store.clock.now())
      }, (error: unknown) => {
        if (!handedOff) {
          cancelWait?.()
          store.release()
          reject(error) // the core's failed act: a bare 500
          return
        }
        if (job?.fail(store.clock.now()) === true) request.log.error({ err: error instanceof Error ? error : undefined }, 'gpt: job failed')
      })
    })
  }
}
