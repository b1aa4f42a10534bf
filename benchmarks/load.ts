// The load generator, in its own process (pinned to its own core by the orchestrator): runs
// autocannon on request and replies with a summary of the run.
import autocannon from 'autocannon'
import { serve } from './processes.ts'

/** One run, as the orchestrator asks for it. */
export interface LoadJob {
  url: string
  method: 'GET' | 'POST'
  body?: string
  headers?: Record<string, string>
  connections: number
  pipelining: number
  /** Seconds; or, with `amount`, the number of requests instead. */
  duration?: number
  amount?: number
  /** A sequence of requests each connection cycles through (the soak's mix). */
  requests?: { method: 'GET' | 'POST', path: string, body?: string, headers?: Record<string, string> }[]
  /** Every `[<id>]` in a request's bytes (a header's value too) another id each request: a fresh key each. */
  idReplacement?: boolean
}

export interface LoadSummary {
  /** Responses per second over the whole run. */
  rps: number
  /** Latency percentiles in milliseconds. */
  p50: number
  p99: number
  responses: number
  seconds: number
  errors: number
  timeouts: number
  statuses: Record<string, number>
  /** The load generator's own CPU time over the run's length: near 1 means it was the bottleneck. */
  loadCpu: number
}

// No Accept or User-Agent of autocannon's own: every request carries what curl -d would send.
const HEADERS = { accept: '*/*' }

async function run (job: LoadJob): Promise<LoadSummary> {
  const cpu = process.cpuUsage()
  const result = await autocannon({
    url: job.url,
    method: job.method,
    headers: { ...HEADERS, ...(job.body === undefined ? {} : { 'content-type': 'application/json' }), ...job.headers },
    ...(job.body === undefined ? {} : { body: job.body }),
    ...(job.requests === undefined ? {} : { requests: job.requests }),
    ...(job.idReplacement === true ? { idReplacement: true } : {}),
    connections: job.connections,
    pipelining: job.pipelining,
    // autocannon notices that a run of `amount` requests is over at its next sample, once a
    // second by default: every 10 ms keeps the run's length, hence req/s, right to 1 %
    ...(job.amount === undefined ? { duration: job.duration ?? 1 } : { amount: job.amount, sampleInt: 10 }),
    timeout: 10
  })
  const statuses: Record<string, number> = {}
  for (const [code, stats] of Object.entries(result.statusCodeStats ?? {})) statuses[code] = stats.count ?? 0
  const responses = Object.values(statuses).reduce((a, b) => a + b, 0)
  const used = process.cpuUsage(cpu)
  return {
    rps: responses / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    responses,
    seconds: result.duration,
    errors: result.errors,
    timeouts: result.timeouts,
    statuses,
    loadCpu: (used.user + used.system) / 1e6 / result.duration
  }
}

serve(async (message) => {
  if (message.type === 'close') process.exit(0)
  return { ...await run(message.job as LoadJob) }
})
process.send?.({ ready: true })
