import type { JsonObject } from '../form/compile.ts'
import { renderPage, type Page } from '../page/html.ts'
import type { Message } from '../types.ts'
import type { Status } from './job.ts'
import type { JobView as Job } from './source.ts'

/**
 * The forms of a job address, one a state (draft §7.2: as small as the address can tolerate): a
 * control act is admitted only while it means something, and anything else is the bare 204.
 */
export const CONTROL_FORMS: Readonly<Record<'working' | 'done', JsonObject>> = Object.freeze({
  working: freeze({
    type: 'object',
    properties: { do: { const: 'cancel', description: 'Stop the act: it is told to stop and the job reads as cancelled.' } },
    required: ['do'],
    additionalProperties: false
  }),
  done: freeze({
    type: 'object',
    properties: { do: { const: 'forget', description: 'Drop the job now: its address answers 404 from then on.' } },
    required: ['do'],
    additionalProperties: false
  })
})

/** How many events the arrival's `m` repeats. */
export const MESSAGES = 50

/** A job arrival as it goes on the wire. */
export interface JobArrival {
  readonly body: string
  readonly etag: string
}

const cache = new WeakMap<Job, JobArrival & { version: number }>()

/**
 * The arrival of a job address (draft §3.2): p, m and s, then advisory members (`status`,
 * `started`, `progress`, `result`, `expires`, `events`) a client may ignore. Built from the job's state alone,
 * never from who asks (draft §3.2), once per change of state.
 */
export function jobArrival (job: Job, address: string, href: string, poll: number): JobArrival {
  const cached = cache.get(job)
  if (cached !== undefined && cached.version === job.version) return cached
  const started = new Date(job.started).toISOString()
  const since = `An act posted to ${address} at ${started}`
  const expires = job.expires === undefined ? undefined : new Date(job.expires).toISOString()
  const p = `${since} ${PROMPTS[job.status](Math.ceil(poll / 1000), expires ?? '')}`
  const m = job.last(MESSAGES).map((event) => ({ role: 'assistant', content: event.message }))
  const s = job.done ? CONTROL_FORMS.done : CONTROL_FORMS.working
  let body = `{"p":${JSON.stringify(p)},"m":${JSON.stringify(m)},"s":${JSON.stringify(s)},"status":"${job.status}","started":"${started}"`
  if (job.progressed !== undefined) body += `,"progress":${job.progressed}`
  if (job.result !== undefined) body += `,"result":${job.result}`
  if (expires !== undefined) body += `,"expires":"${expires}"`
  body += `,"events":${JSON.stringify(`${href}/events`)}}`
  const arrival = { version: job.version, body, etag: `"${job.version}"` }
  cache.set(job, arrival)
  return arrival
}

const pages = new WeakMap<Job, Page & { version: number }>()

/**
 * The page of a job address (draft §3.3): the page every address has, of the job arrival's p, m
 * and s, built once per change of state like the arrival.
 */
export function jobPage (job: Job, arrival: JobArrival, href: string, poll: number): Page {
  const cached = pages.get(job)
  if (cached !== undefined && cached.version === job.version) return cached
  const { p, m, s } = JSON.parse(arrival.body) as { p: string, m: Message[], s: JsonObject }
  // While it works, the page follows the job's events from the last one it shows (src/page/live.ts).
  const live = job.done ? undefined : { events: `${href}/events`, after: job.version, refresh: Math.ceil(poll / 1000) }
  const page = { version: job.version, ...renderPage({ path: href, prompt: p, messages: m, form: s }, [], [], live) }
  pages.set(job, page)
  return page
}

const PROMPTS: Readonly<Record<Status, (poll: number, expires: string) => string>> = {
  working: (poll) => `is still working; its progress so far is in m. GET this address again (every ${poll} s is enough) for its progress and, once done, its result; post {"do":"cancel"} to stop it.`,
  completed: (_, expires) => `has completed: its result is the member "result", and the last message. This address is kept until ${expires}; post {"do":"forget"} to drop it now.`,
  failed: (_, expires) => `has failed. This address is kept until ${expires}; post {"do":"forget"} to drop it now.`,
  cancelled: (_, expires) => `was cancelled. This address is kept until ${expires}; post {"do":"forget"} to drop it now.`
}

function freeze (value: object): JsonObject {
  for (const member of Object.values(value)) if (member !== null && typeof member === 'object') freeze(member)
  return Object.freeze(value) as JsonObject
}
