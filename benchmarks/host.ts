// One host under load, in its own process. Either side serves the form of workload.ts:
//   baseline  what a user writes by hand with Fastify: GET sends precomputed bytes, POST uses
//             `schema: { body: form }` with Fastify's default JSON parser and validator
//   gpt       fastify-gpt, the built package (dist/, so `npm run build` first) with the same form and result
// Arguments: --side baseline|gpt  --rate-limit on|off  --mounts N (gpt only: addresses /a0 ... /aN-1)
//            --lint on|off (gpt only: the `lint` option, on by default)
//            --module PATH (gpt only: another build's index.js instead of the package, to try a change)
//            --keep-tick  keep one process.nextTick object alive, as the gpt side does (keepTickObject)
//            --idempotency local|shared (gpt only: the `idempotency` option, keys kept a long time and
//                      never full, so that every fresh key of a run is claimed and kept; shared: with
//                      `share: { redis }`, an ioredis client of the redis-server at --redis-port)
//            --beside  instead of the form's routes, a plain GET / sending the arrival bytes; the gpt
//                      side also registers an address at /other, which the load never asks for
// Only the gpt side loads fastify-gpt: the baseline's process never holds its code.
// It reports { port, registrationMs, pid } once listening, then answers the orchestrator over IPC
// (the steady-state bench sends nothing until it has measured):
// `usage` (CPU time so far), `memory` (process.memoryUsage() after a forced GC when --expose-gc),
// `profile-start` and `profile-stop` (V8's CPU profiler, as `node --cpu-prof` runs it, but around
// the measured load only, written where asked), `close`. Nothing is added to the host's routes, so the load sees exactly the two routes.
import rateLimit from '@fastify/rate-limit'
import Fastify, { type FastifyInstance } from 'fastify'
import type builtGpt from 'fastify-gpt'
import { writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { serve } from './processes.ts'
import { arrivalBytes, BODY_LIMIT, form, messages, prompt, receipt } from './workload.ts'

const { values } = parseArgs({
  options: {
    side: { type: 'string', default: 'gpt' },
    'rate-limit': { type: 'string', default: 'off' },
    mounts: { type: 'string' },
    lint: { type: 'string', default: 'on' },
    module: { type: 'string' },
    beside: { type: 'boolean', default: false },
    'keep-tick': { type: 'boolean', default: false },
    idempotency: { type: 'string' },
    'redis-port': { type: 'string' }
  }
})
const side = values.side
const gpt = side !== 'gpt'
  ? undefined
  : (await import(values.module === undefined ? 'fastify-gpt' : pathToFileURL(resolve(values.module)).href) as { default: typeof builtGpt }).default
const limited = values['rate-limit'] === 'on'
if (values.lint !== 'on' && values.lint !== 'off') throw new Error(`--lint must be on or off, not ${values.lint}`)
const linted = values.lint === 'on'
/** So high it never trips: rate limiting costs its bookkeeping and nothing else. */
const NEVER = 1e9

let acts = 0

/** The `idempotency` option (and `share`) --idempotency asks for, or nothing. */
async function idempotent (app: FastifyInstance): Promise<Record<string, unknown>> {
  const kind = values.idempotency
  if (kind === undefined) return {}
  if (kind !== 'local' && kind !== 'shared') throw new Error(`--idempotency must be local or shared, not ${kind}`)
  // never full, for one load generator's keys (a build from before maxBytes has no such member)
  const idempotency = { keep: 3_600_000, maxKeys: 10_000_000, ...(values.module === undefined ? { maxBytes: 2 ** 40 } : {}) }
  if (kind === 'local') return { idempotency }
  const { Redis } = await import('ioredis')
  const redis = new Redis({ host: '127.0.0.1', port: Number(values['redis-port']), enableOfflineQueue: false, maxRetriesPerRequest: 0 })
  await new Promise((resolve, reject) => { redis.once('ready', resolve).once('error', reject) })
  app.addHook('onClose', async () => { redis.disconnect() })
  return { idempotency, share: { redis } }
}

function baseline (app: FastifyInstance): void {
  if (limited) app.register(rateLimit, { max: NEVER })
  app.register(async (scope) => {
    scope.get('/', (_request, reply) => reply.header('content-type', 'application/json; charset=utf-8').send(arrivalBytes))
    scope.post('/', { schema: { body: form }, bodyLimit: BODY_LIMIT }, (request) => {
      acts++
      return receipt(request.body as { items: unknown[] })
    })
  })
}

/** The plain route a user writes beside an address. */
function plain (app: FastifyInstance): void {
  app.get('/', (_request, reply) => reply.type('application/json').send(arrivalBytes))
}

function address (app: FastifyInstance, prefix?: string, extra: Record<string, unknown> = {}): void {
  if (gpt === undefined) throw new Error('only the gpt side registers addresses')
  app.register(gpt, {
    ...(prefix === undefined ? {} : { prefix }),
    prompt,
    messages,
    form,
    act: (order) => {
      acts++
      return receipt(order)
    },
    rateLimit: limited ? { max: NEVER } : false,
    bodyLimit: BODY_LIMIT,
    lint: linted,
    ...extra
  })
}

const app = Fastify({ logger: false })
const started = performance.now()
// The V8 remedy docs/benchmarks.md advises a Node 20 host to opt into (keepTickObject): the gpt
// side takes it, as such a host would; the baseline takes it where asked.
if (values['keep-tick'] || side === 'gpt') (await import('../src/address/tick.ts')).keepTickObject()
if (side !== 'baseline' && side !== 'gpt') throw new Error(`--side must be baseline or gpt, not ${side}`)
if (values.beside) {
  plain(app)
  if (side === 'gpt') address(app, '/other', { html: false })
} else if (side === 'baseline') {
  baseline(app)
} else {
  if (values.mounts === undefined) {
    address(app, undefined, await idempotent(app))
  } else {
    const count = Number(values.mounts)
    for (let i = 0; i < count; i++) address(app, `/a${i}`)
  }
}
await app.ready()
const registrationMs = performance.now() - started
await app.listen({ host: '127.0.0.1', port: 0 })
const { port } = app.server.address() as { port: number }

const gc = (globalThis as { gc?: () => void }).gc
let profiler: Session | undefined

serve(async (message) => {
  switch (message.type) {
    case 'usage': {
      const { user, system } = process.cpuUsage()
      return { cpuMicros: user + system, acts }
    }
    case 'memory': {
      if (gc !== undefined) {
        // twice: the first pass can leave finalizable objects for the second
        gc()
        gc()
      }
      return { memory: process.memoryUsage(), collected: gc !== undefined }
    }
    case 'profile-start':
      profiler = new Session()
      profiler.connect()
      await profiler.post('Profiler.enable')
      await profiler.post('Profiler.setSamplingInterval', { interval: Number(message.intervalMicros ?? 250) })
      await profiler.post('Profiler.start')
      return {}
    case 'profile-stop': {
      if (profiler === undefined) throw new Error('no profile was started')
      const { profile } = await profiler.post('Profiler.stop')
      profiler.disconnect()
      profiler = undefined
      writeFileSync(String(message.file), JSON.stringify(profile))
      return {}
    }
    case 'close':
      await app.close()
      process.exit(0)
      break
    default:
      throw new Error(`unknown request ${String(message.type)}`)
  }
  return {}
})
process.send?.({ port, registrationMs, pid: process.pid, side, rateLimit: limited, node: process.version })
