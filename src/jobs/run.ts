import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Act, Settings } from '../address/options.ts'
import { isThenable, LATE, within } from '../address/settle.ts'
import { LazyContext } from './context.ts'
import { EarlyProgress } from './early.ts'
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
 * is answered with the job address's handle (docs/jobs.md). `maxJobs` acts running, or the
 * client's share of them: 503 and nothing runs.
 */
export function backgroundAct (settings: Settings, background: BackgroundSettings, store: JobStore): CoreAct {
  const act = settings.act as unknown as Act
  const { actTimeout } = settings
  const base = jobsPath(settings.path)
  return function onAct (body, request: FastifyRequest, reply: FastifyReply) {
    const place = store.reserve(request.ip)
    if (place === undefined) {
      request.log.warn('gpt: act refused, maxJobs reached')
      reply.code(503).header('retry-after', String(store.retryAfter(request.ip, actTimeout))).send()
      return undefined
    }
    const context = new LazyContext()
    let result: unknown
    let progressing: boolean
    try {
      result = act(body, request, reply, context)
      progressing = isProgressing(result)
      if (!progressing && !isThenable(result)) {
        store.release(place)
        return result // answered at once: as it is without background, whatever Prefer says
      }
    } catch (error) {
      store.release(place)
      throw error
    }

    const prefer = preferences(request.headers.prefer)
    const wait = prefer.async ? 0 : Math.min(background.after, prefer.wait ?? Infinity)
    // Progress before the hand-off is kept (its last RETAINED), so the job's history starts where the act did.
    const early = new EarlyProgress()
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
      let answered = false
      const handOff = (): void => {
        if (answered) return // settled first: answered within its request
        handedOff = true
        if (reply.sent) { // the act answered by itself: nothing to hand off
          store.release(place)
          resolve(undefined)
          return
        }
        job = store.admit(place)
        const current = job
        // With `share`: stored in Redis before its first event, and before the handle names it.
        const announced = store.announce(current)
        // Its signal is the job's: aborted on cancel and on actTimeout, never on a disconnect.
        current.controller.signal.addEventListener('abort', () => { context.abort(current.controller.signal.reason) }, { once: true })
        early.replay(current)
        if (actTimeout !== undefined) failAt(current, place.started + actTimeout, store, request)
        const handle = handleOf(`${base}/${current.id}`, reply, prefer.async)
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
          // request is answered as when Redis is away for anything else: after a poll.
          current.fail(store.clock.now())
          store.forget(current.id)
          reply.removeHeader('link').removeHeader('preference-applied').code(503).header('retry-after', String(store.retryAfter(place.client, undefined))).send()
          resolve(undefined)
        }, reject)
      }
      settled.then((value) => {
        if (!handedOff) { // answered within its request, as without background
          answered = true
          cancelWait?.()
          store.release(place)
          resolve(value)
          return
        }
        job?.complete(value, store.clock.now())
      }, (error: unknown) => {
        if (!handedOff) {
          answered = true
          cancelWait?.()
          store.release(place)
          reject(error) // the core's failed act: a bare 500
          return
        }
        if (job?.fail(store.clock.now()) === true) request.log.error({ err: error instanceof Error ? error : undefined }, 'gpt: job failed')
      })
      // respond-async hands off at once, but only an act still pending: one already settled
      // (an async function with nothing to wait for) is answered plainly, as it would be in time.
      const cancelWait = wait === 0 ? undefined : store.clock.after(wait, handOff, true)
      if (wait === 0) queueMicrotask(handOff)
    })
  }
}

/** Fails the job at `deadline` (the act's start and actTimeout) unless it ends first. */
function failAt (job: Job, deadline: number, store: JobStore, request: FastifyRequest): void {
  const cancelTimer = store.clock.after(deadline - store.clock.now(), () => {
    if (job.fail(store.clock.now())) request.log.warn('gpt: job ran past actTimeout')
  })
  job.subscribe((event) => { if (event.status !== 'working') cancelTimer() })
}

/** The handle answering an act that became the job at `href`, its header fields set on `reply`. */
function handleOf (href: string, reply: FastifyReply, async: boolean): Handle {
  reply.header('link', `<${href}>; rel="monitor"`).header('cache-control', 'no-store')
  if (async) reply.header('preference-applied', 'respond-async')
  return {
    href,
    p: 'The act goes on at this job address: GET it for its state, progress and result; its events stream as NDJSON at "events".',
    rel: 'monitor',
    status: 'working',
    events: `${href}/events`
  }
}
