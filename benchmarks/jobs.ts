// What `background` costs (docs/jobs.md): the same fast acts with and without it, measured in
// turns in one run; the heap held by 10,000 finished jobs; events a second through the NDJSON
// stream to one client; the heap a stream holds while its client does not read, against one
// that reads, and once its job is forgotten; the longest the event loop stalls at the hand-off
// of an act that yielded as fast as it could before it. Host and load share this process, so
// ratios mean more than rates. --quick checks counts and statuses, not timings.
//   npm run bench:jobs [-- --rounds 3 --duration 2 --jobs 10000 --events 100000 --quick]
// Writes benchmarks/results/jobs-latest.json.
import { mkdirSync, writeFileSync } from 'node:fs'
import { get, type IncomingMessage } from 'node:http'
import { resolve } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'
import Fastify, { type FastifyInstance } from 'fastify'
import gpt from '../src/index.ts'
import { DEFAULT_BACKGROUND } from '../src/jobs/settings.ts'
import { JobStore } from '../src/jobs/store.ts'

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    duration: { type: 'string', default: '2' },
    jobs: { type: 'string', default: '10000' },
    events: { type: 'string', default: '100000' },
    quick: { type: 'boolean', default: false },
    out: { type: 'string', default: 'benchmarks/results/jobs-latest.json' }
  }
})
const quick = values.quick
const rounds = quick ? 1 : Number(values.rounds)
const duration = quick ? 1 : Number(values.duration)
const jobCount = quick ? 100 : Number(values.jobs)
const eventCount = quick ? 1000 : Number(values.events)
const injections = quick ? 1000 : 5000

const form = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false } as const
const ACTS = {
  sync: (body: { n: number }) => ({ n: body.n + 1 }),
  async: async (body: { n: number }) => ({ n: body.n + 1 })
}

/**
 * Acts a second through `inject` (no sockets: the plugin's own work is a larger share of each
 * request than over the network, so an overhead shows more, not less), and over a socket with
 * autocannon.
 */
async function rates (act: keyof typeof ACTS, background: boolean): Promise<{ inject: number, socket: number }> {
  const app = Fastify()
  await app.register(gpt, { form, act: ACTS[act], rateLimit: false, lint: false, ...(background ? { background: {} } : {}) })
  const request = { method: 'POST' as const, url: '/', payload: '{"n":1}', headers: { 'content-type': 'application/json' } }
  for (let i = 0; i < 500; i++) await app.inject(request) // warm-up
  const started = performance.now()
  for (let i = 0; i < injections; i++) {
    const response = await app.inject(request)
    if (response.statusCode !== 200) throw new Error(`${act}: ${response.statusCode}`)
  }
  const inject = injections / ((performance.now() - started) / 1000)
  const url = await app.listen({ port: 0, host: '127.0.0.1' })
  const result = await autocannon({ url, method: 'POST', body: '{"n":1}', headers: { 'content-type': 'application/json' }, connections: 20, pipelining: 4, duration })
  await app.close()
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${act}${background ? ' with background' : ''}: ${result.non2xx} non-2xx, ${result.errors} errors`)
  return { inject, socket: result.requests.average }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

type Pair = { without: number, with: number, ratio: number }
const overhead: Record<string, { inject: Pair, socket: Pair }> = {}
const pair = (without: number[], withIt: number[]): Pair =>
  ({ without: Math.round(median(without)), with: Math.round(median(withIt)), ratio: Math.round(100 * median(withIt) / median(without)) / 100 })
for (const act of Object.keys(ACTS) as Array<keyof typeof ACTS>) {
  const runs = { inject: { without: [] as number[], with: [] as number[] }, socket: { without: [] as number[], with: [] as number[] } }
  for (let round = 0; round < rounds; round++) {
    // In turns, the other way round every other round, so a drift of the machine falls on both.
    for (const on of round % 2 === 0 ? [false, true] : [true, false]) {
      const { inject, socket } = await rates(act, on)
      runs.inject[on ? 'with' : 'without'].push(inject)
      runs.socket[on ? 'with' : 'without'].push(socket)
    }
  }
  const figures = { inject: pair(runs.inject.without, runs.inject.with), socket: pair(runs.socket.without, runs.socket.with) }
  overhead[act] = figures
  for (const via of ['inject', 'socket'] as const) {
    console.log(`${act} act, ${via}: ${figures[via].without} acts/s without background, ${figures[via].with} with (x${figures[via].ratio})`)
  }
}

// The heap of finished jobs: each with three progress events and a small result.
const gc = (globalThis as { gc?: () => void }).gc
gc?.()
const before = process.memoryUsage().heapUsed
const store = new JobStore({ ...DEFAULT_BACKGROUND, maxJobs: jobCount })
for (let i = 0; i < jobCount; i++) {
  const job = store.admit(store.reserve('bench')!)
  for (let step = 1; step <= 3; step++) job.progress({ step, of: 3, message: `Step ${step} of 3` })
  job.complete({ letters: { tabs: 4, or: 2, spaces: 6 }, total: 12 }, Date.now())
}
gc?.()
const heldBytes = process.memoryUsage().heapUsed - before
const perJob = Math.round(heldBytes / jobCount)
console.log(`${jobCount} finished jobs: ${(heldBytes / 1048576).toFixed(1)} MB of heap, ${perJob} B a job${gc === undefined ? ' (run with --expose-gc for a settled figure)' : ''}`)
store.close()

// Events a second through the stream: one job yielding as fast as it can, one client reading.
const app = Fastify()
await app.register(gpt, {
  form,
  rateLimit: false,
  lint: false,
  background: {},
  async * act () {
    for (let i = 1; i <= eventCount; i++) {
      yield { i }
      if (i % 1000 === 0) await new Promise((resolve) => setImmediate(resolve))
    }
    return { events: eventCount }
  }
})
const url = await app.listen({ port: 0, host: '127.0.0.1' })
const started = performance.now()
const handle = await (await fetch(`${url}/`, { method: 'POST', body: '{"n":1}', headers: { prefer: 'respond-async' } })).json() as { events: string }
const lines = await new Promise<number>((resolve, reject) => {
  get(`${url}${handle.events}`, (response) => {
    let count = 0
    let rest = ''
    let last = ''
    response.setEncoding('utf8')
    response.on('data', (chunk: string) => {
      const parts = (rest + chunk).split('\n')
      rest = parts.pop() ?? ''
      const events = parts.filter(Boolean)
      count += events.length
      last = events.at(-1) ?? last
    })
    // A job keeps its last 1000 events: a stream opened late starts there, and ends at the result.
    response.on('end', () => { if (JSON.parse(last).status === 'completed') resolve(count); else reject(new Error(`the stream ended at ${last}`)) })
  }).on('error', reject)
})
const seconds = (performance.now() - started) / 1000
await app.close()
const perSecond = Math.round(lines / seconds)
console.log(`stream: ${lines} events in ${seconds.toFixed(2)} s, ${perSecond} events/s`)

const MB = 1048576
const settledHeap = async (): Promise<number> => {
  await new Promise((resolve) => setImmediate(resolve))
  gc?.()
  return process.memoryUsage().heapUsed
}
const pad = 'x'.repeat(1000)
// Enough for a paused client to fall behind the window even in a quick run (more than the
// sockets take), and for an act to yield more than the window before its hand-off.
const stallEvents = quick ? 20_000 : eventCount
const earlyEvents = quick ? 5000 : eventCount

/** A host whose act yields `events` values of about 1 KB (each a string of its own) as fast as it can, then waits for `finish`. */
async function yielding (events: number, after: number): Promise<{ app: FastifyInstance, url: string, yielded: () => number, finish: () => void }> {
  let yielded = 0
  let finish!: () => void
  const finished = new Promise<void>((resolve) => { finish = resolve })
  const app = Fastify()
  await app.register(gpt, {
    form,
    rateLimit: false,
    lint: false,
    background: { after },
    async * act () {
      for (let i = 1; i <= events; i++) {
        yield { i, pad: JSON.stringify({ i, pad }) } // a flat string, sharing nothing with the others
        yielded = i
        if (i % 1000 === 0) await new Promise((resolve) => setImmediate(resolve))
      }
      await finished
      return { events }
    }
  })
  return { app, url: await app.listen({ port: 0, host: '127.0.0.1' }), yielded: () => yielded, finish }
}

const until = async (check: () => boolean | Promise<boolean>): Promise<void> => {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 10))
}
const status = async (app: FastifyInstance, href: string): Promise<number | string> => {
  const response = await app.inject(href)
  return response.statusCode === 200 ? response.json().status : response.statusCode
}

/**
 * The heap a stream holds while its job yields every event: its client paused (a socket not
 * read) or reading; for the paused one, also once the job is forgotten, the stream still open.
 */
async function streamHeap (paused: boolean): Promise<{ heldBytes: number, afterForgetBytes: number | undefined, lines: number }> {
  const { app, url, yielded, finish } = await yielding(stallEvents, 10)
  const before = await settledHeap()
  const handle = (await app.inject({ method: 'POST', url: '/', payload: '{"n":1}', headers: { 'content-type': 'application/json', prefer: 'respond-async' } })).json() as { href: string, events: string }
  const response = await new Promise<IncomingMessage>((resolve, reject) => { get(`${url}${handle.events}`, resolve).on('error', reject) })
  // Counted as they come, only the last kept: the client's own memory is not the stream's.
  let lines = 0
  let rest = ''
  let last = ''
  const read = (chunk: string): void => {
    const parts = (rest + chunk).split('\n')
    rest = parts.pop() ?? ''
    for (const part of parts) {
      if (part === '') continue
      lines++
      last = part
    }
  }
  response.setEncoding('utf8')
  const ended = new Promise<void>((resolve) => { response.on('end', resolve) })
  if (paused) response.pause()
  else response.on('data', read)
  await until(() => yielded() === stallEvents)
  finish()
  await until(async () => await status(app, handle.href) === 'completed')
  if (!paused) await ended
  const heldBytes = await settledHeap() - before
  let afterForgetBytes: number | undefined
  if (paused) {
    const forgot = await app.inject({ method: 'POST', url: handle.href, payload: '{"do":"forget"}' })
    if (forgot.body !== '{"status":"forgotten"}' || await status(app, handle.href) !== 404) throw new Error(`forget: ${forgot.statusCode} ${forgot.body}`)
    afterForgetBytes = await settledHeap() - before
    response.on('data', read)
    response.resume()
    await ended // a forgotten job's stream ends when its client reads again
  }
  await app.close()
  const final = JSON.parse(last === '' ? 'null' : last) as { seq: number, status: string } | null
  // Read through, it ends at the result; paused and forgotten, before it: the job was gone.
  if (final === null || (final.status === 'completed') === paused) throw new Error(`the ${paused ? 'paused' : 'reading'} stream ended at ${last}`)
  return { heldBytes, afterForgetBytes, lines }
}

const reading = await streamHeap(false)
const stalled = await streamHeap(true)
const mb = (bytes: number): string => (bytes / MB).toFixed(1)
console.log(`stream of ${stallEvents} events of ~1 KB: heap +${mb(stalled.heldBytes)} MB with its client paused, +${mb(reading.heldBytes)} MB read through (${reading.lines} lines); ` +
  `+${mb(stalled.afterForgetBytes!)} MB once the job is forgotten, the paused stream still open`)

/**
 * The longest the event loop stalls while an act yields `earlyEvents` values as fast as it can
 * before its hand-off, and the hand-off replays what it kept; and the heap that holds before it.
 */
async function earlyReplay (): Promise<{ maxStallMs: number, heldBytes: number, firstSeq: number }> {
  const after = quick ? 1000 : 5000
  const { app, yielded, finish } = await yielding(earlyEvents, after)
  const before = await settledHeap()
  const delay = monitorEventLoopDelay({ resolution: 5 })
  delay.enable()
  const answer = app.inject({ method: 'POST', url: '/', payload: '{"n":1}', headers: { 'content-type': 'application/json' } })
  await until(() => yielded() === earlyEvents)
  const heldBytes = await settledHeap() - before
  delay.reset() // the collection just made is the bench's, not the act's
  const { href } = (await answer).json() as { href?: string }
  // The answer comes in the same turn as the hand-off: the histogram sees a stall only at its next sample.
  await new Promise((resolve) => setTimeout(resolve, 50))
  delay.disable()
  if (href === undefined) throw new Error(`the act, still running after ${after} ms, was not handed off`)
  finish()
  await until(async () => await status(app, href) === 'completed')
  const first = JSON.parse((await app.inject(`${href}/events`)).body.split('\n')[0]!) as { seq: number, progress: { i: number } }
  // The first event kept has the seq it would have had: its own value's count.
  if (first.seq !== first.progress.i) throw new Error(`the first kept event has seq ${first.seq}, for value ${first.progress.i}`)
  await app.close()
  return { maxStallMs: delay.max / 1e6, heldBytes, firstSeq: first.seq }
}

const early = await earlyReplay()
console.log(`${earlyEvents} values yielded before the hand-off: heap +${mb(early.heldBytes)} MB before it; the longest event-loop stall from then to the handle ${early.maxStallMs.toFixed(1)} ms; the job starts at seq ${early.firstSeq}`)

if (!quick) {
  const out = resolve(import.meta.dirname, '..', values.out)
  mkdirSync(resolve(out, '..'), { recursive: true })
  writeFileSync(out, JSON.stringify({
    date: new Date().toISOString(),
    node: process.version,
    rounds,
    duration,
    overhead,
    finishedJobs: { count: jobCount, heapBytes: heldBytes, bytesPerJob: perJob },
    stream: { events: lines, seconds, perSecond },
    stalledStream: { events: stallEvents, pausedBytes: stalled.heldBytes, readingBytes: reading.heldBytes, afterForgetBytes: stalled.afterForgetBytes },
    beforeHandOff: { events: earlyEvents, heldBytes: early.heldBytes, maxStallMs: early.maxStallMs, firstSeq: early.firstSeq }
  }, null, 2) + '\n')
}
