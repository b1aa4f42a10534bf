import type { FastifyReply, FastifyRequest } from 'fastify'
import type { CoreAct } from '../address/act.ts'
import type { Settings } from '../address/options.ts'
import { handOff, isThenable, LATE, within } from '../address/settle.ts'
import { markUnrun, ticketOf, UNKEPT } from '../address/guard.ts'
import type { Door } from '../address/door.ts'
import { noteOutcome } from '../diagnostics.ts'
import { GPT_ERR_RESULT_INVALID } from '../errors.ts'
import { LazyContext } from './context.ts'
import { EarlyProgress } from './early.ts'
import { drain, isProgressing } from './iterable.ts'
import { jobJson, type Job } from './job.ts'
import { preferences } from './prefer.ts'
import type { BackgroundSettings } from './settings.ts'
import type { JobStore, Place } from './store.ts'

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
  const { act } = settings
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
 * How an act with `background` went: answered within its wait (`value`), handed off to a job
 * address (`job`), refused before it ran since `maxJobs` acts are running or the client holds its
 * share (`busy`), or handed off to a job no instance could read, and so stopped (`lost`).
 */
export type Ran =
  | { readonly kind: 'value', readonly value: unknown }
  | { readonly kind: 'job', readonly href: string }
  | { readonly kind: 'busy', readonly retryAfter: number }
  | { readonly kind: 'lost', readonly retryAfter: number }

/** What a caller of `startAct` says of its request: how long to wait, and who hears of progress. */
export interface Waiting {
  /** Milliseconds before an act still running becomes a job; 0: at once, if still pending. */
  readonly wait: number
  /** Told each value the act yields before its hand-off (the MCP bridge's notifications/progress). */
  readonly progress?: ((value: unknown) => void) | undefined
}

/**
 * The act as the core calls it, with `background`: an act that answers within `after` ms (or the
 * client's `Prefer: wait`) answers as ever; one still running then becomes a job, and the request
 * is answered with the job address's handle (docs/jobs.md). `maxJobs` acts running, or the
 * client's share of them: 503 and nothing runs.
 */
export function backgroundAct (settings: Settings, background: BackgroundSettings, store: JobStore, door: Door): CoreAct {
  const start = actStarter(settings, background, store)
  return function onAct (body, request: FastifyRequest, reply: FastifyReply) {
    // A way in by the door (an MCP call) waits `after` and hears the act's progress itself.
    const entry = door.entryOf(request)
    const prefer = preferences(entry === undefined ? request.headers.prefer : undefined)
    const wait = prefer.async || entry?.async === true ? 0 : Math.min(background.after, prefer.wait ?? Infinity)
    const answer = (ran: Ran): unknown => {
      if (ran.kind === 'value') return ran.value
      if (ran.kind === 'job') return handle(ran.href, reply, prefer.async)
      if (ran.kind === 'busy') request.log.warn('gpt: act refused, maxJobs reached')
      reply.code(503).header('retry-after', String(ran.retryAfter)).send()
      return undefined
    }
    const ran = start(body, request, reply, { wait, progress: entry?.progress })
    return ran instanceof Promise ? ran.then(answer) : answer(ran)
  }
}

/** Starts an act of an address with `background`, for POST or the MCP bridge: see Ran. Rejects with what a failed act threw. */
export type StartAct = (body: never, request: FastifyRequest, reply: FastifyReply, waiting: Waiting) => Ran | Promise<Ran>

export function actStarter (settings: Settings, background: BackgroundSettings, store: JobStore): StartAct {
  const { act } = settings
  const { actTimeout } = settings
  const base = jobsPath(settings.path)
  return function start (body, request, reply, waiting) {
    const place = store.reserve(request.ip)
    if (place === undefined) {
      noteOutcome(request, 'busy')
      markUnrun(request) // a guard's key is free again (src/address/guard.ts)
      return { kind: 'busy', retryAfter: store.retryAfter(request.ip, actTimeout) }
    }
    const context = new LazyContext()
    let result: unknown
    let progressing: boolean
    try {
      result = act(body, request, reply, context)
      progressing = isProgressing(result)
      if (!progressing && !isThenable(result)) {
        store.release(place)
        return { kind: 'value', value: result } // answered at once: as it is without background, whatever Prefer says
      }
    } catch (error) {
      store.release(place)
      throw error
    }
    // Progress before the hand-off is kept (its last RETAINED), so the job's history starts where the act did.
    const early = new EarlyProgress()
    let job: Job | undefined
    const onProgress = (value: unknown): void => {
      if (job !== undefined) {
        job.progress(value)
        return
      }
      early.push(value)
      waiting.progress?.(value)
    }
    const stopped = (): boolean => job?.done === true
    const settled: Promise<unknown> = progressing
      ? drain(result as AsyncIterable<unknown>, onProgress, stopped)
      : Promise.resolve(result)
    return new Promise<Ran>((resolve, reject) => {
      let handedOff = false
      let answered = false
      const handOff = (): void => {
        if (answered) return // settled first: answered within its request
        handedOff = true
        if (reply.sent) { // the act answered by itself: nothing to hand off
          store.release(place)
          return resolve({ kind: 'value', value: undefined })
        }
        job = admit(store, place, context, early)
        if (actTimeout !== undefined) failAt(job, place.started + actTimeout, store, request)
        keyedTo(job, request)
        const current = job
        const href = `${base}/${current.id}`
        // With `share`: stored in Redis before its first event, and before the handle names it.
        const announced = store.announce(current)
        noteOutcome(request, 'job')
        if (announced === undefined) return resolve({ kind: 'job', href })
        announced.then((readable) => {
          if (readable) return resolve({ kind: 'job', href })
          noteOutcome(request, 'failed')
          // No instance could read the job: it is not run on (its signal aborted), and the
          // request is answered as when Redis is away for anything else: after a poll.
          current.fail(store.clock.now())
          store.forget(current.id)
          resolve({ kind: 'lost', retryAfter: store.retryAfter(place.client, undefined) })
        }, reject)
      }
      const answer = (): void => {
        answered = true
        cancelWait?.()
        store.release(place)
      }
      settled.then((value) => {
        if (handedOff) {
          complete(job, value, settings, store, request)
          return
        }
        answer() // answered within its request, as without background
        resolve({ kind: 'value', value })
      }, (error: unknown) => {
        if (!handedOff) {
          answer()
          return reject(error) // the core's failed act: a bare 500
        }
        if (job?.fail(store.clock.now()) === true) request.log.error({ err: error instanceof Error ? error : undefined }, 'gpt: job failed')
      })
      // A wait of 0 hands off at once, but only an act still pending: one already settled (an
      // async function with nothing to wait for) is answered plainly, as it would be in time.
      const cancelWait = waiting.wait === 0 ? undefined : store.clock.after(waiting.wait, handOff, true)
      if (waiting.wait === 0) queueMicrotask(handOff)
    })
  }
}

/**
 * A job's result, judged by the result form as the act's answer would have been: one it does not
 * admit fails the job (its reason to the log), and is never shown.
 */
function complete (job: Job | undefined, value: unknown, settings: Settings, store: JobStore, request: FastifyRequest): void {
  const json = settings.result === undefined ? undefined : jobJson(value)
  const refused = json === undefined ? undefined : settings.result?.refuses(json)
  if (refused === undefined) {
    job?.complete(value, store.clock.now())
    return
  }
  if (job?.fail(store.clock.now()) === true) request.log.error({ err: new GPT_ERR_RESULT_INVALID(settings.path, refused) }, 'gpt: job failed')
}

/** The job an act becomes at its hand-off: its signal the act's, its early progress replayed. */
function admit (store: JobStore, place: Place, context: LazyContext, early: EarlyProgress): Job {
  const job = store.admit(place)
  // Its signal is the job's: aborted on cancel and on actTimeout, never on a disconnect.
  job.controller.signal.addEventListener('abort', () => { context.abort(job.controller.signal.reason) }, { once: true })
  early.replay(job)
  return job
}

/**
 * Where the act runs under an Idempotency-Key, the key's answer becomes the job's own once it ends
 * (its result as the act's 200, or the bare 500 of a job that failed or was cancelled): the key
 * outlives the job, and a retry after the job is forgotten gets what the job came to.
 */
function keyedTo (job: Job, request: FastifyRequest): void {
  const ticket = ticketOf(request)
  if (ticket === undefined) return
  const stop = job.subscribe((event) => {
    if (event.status === 'working') return
    stop()
    ticket.amend(job.result === undefined ? UNKEPT : { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: job.result })
  })
}

/** Fails the job at `deadline` (the act's start and actTimeout) unless it ends first. */
function failAt (job: Job, deadline: number, store: JobStore, request: FastifyRequest): void {
  const cancelTimer = store.clock.after(deadline - store.clock.now(), () => {
    if (job.fail(store.clock.now())) request.log.warn('gpt: job ran past actTimeout')
  })
  job.subscribe((event) => { if (event.status !== 'working') cancelTimer() })
}

/** The handle answering an act that became the job at `href`, its header fields set on `reply`. */
function handle (href: string, reply: FastifyReply, async: boolean): Handle {
  reply.header('link', `<${href}>; rel="monitor"`).header('cache-control', 'no-store')
  if (async) reply.header('preference-applied', 'respond-async')
  return handOff(handleBody(href)) // the act's hand-off, not its result: the result form judges the job's
}

/** What a handle is, as a JSON Schema (an MCP tool's outputSchema names it beside the result form). */
export const HANDLE_SCHEMA = Object.freeze({
  type: 'object',
  description: "A job's handle: the act goes on at the job address href",
  properties: {
    href: { type: 'string' },
    p: { type: 'string' },
    rel: { const: 'monitor' },
    status: { const: 'working' },
    events: { type: 'string' }
  },
  required: ['href', 'p', 'rel', 'status', 'events'],
  additionalProperties: false
})

/** The handle's JSON: where the job is, and its events. */
export function handleBody (href: string): Handle {
  return {
    href,
    p: 'The act goes on at this job address: GET it for its state, progress and result; its events stream as NDJSON at "events".',
    rel: 'monitor',
    status: 'working',
    events: `${href}/events`
  }
}
