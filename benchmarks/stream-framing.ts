// What the SSE framing of a job's progress stream costs against its NDJSON framing (docs/jobs.md):
// one job a stream, yielding as fast as it can, one client reading over a socket, the two framings
// in turns in one run. Host and client share this process, so the ratio means more than the rates.
//   npm run bench:stream [-- --rounds 5 --events 50000]
import { get } from 'node:http'
import { parseArgs } from 'node:util'
import Fastify from 'fastify'
import gpt from '../src/index.ts'

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    events: { type: 'string', default: '50000' }
  }
})
const rounds = Number(values.rounds)
const eventCount = Number(values.events)

const app = Fastify()
await app.register(gpt, {
  form: { type: 'object' },
  rateLimit: false,
  lint: false,
  background: { rateMax: 1_000_000 },
  async * act () {
    for (let i = 1; i <= eventCount; i++) {
      yield { i, message: `event ${i}` }
      if (i % 1000 === 0) await new Promise((resolve) => setImmediate(resolve))
    }
    return { events: eventCount }
  }
})
const url = await app.listen({ port: 0, host: '127.0.0.1' })

const FRAMINGS = {
  ndjson: { accept: 'application/x-ndjson', event: (line: string) => line !== '' ? line : undefined },
  sse: { accept: 'text/event-stream', event: (line: string) => line.startsWith('data: ') ? line.slice(6) : undefined }
}

/** Events a second a client receives of one new job, framed as `name`; checks the last is the result. */
async function stream (name: keyof typeof FRAMINGS): Promise<{ events: number, perSecond: number }> {
  const framing = FRAMINGS[name]
  const started = performance.now()
  const handle = await (await fetch(`${url}/`, { method: 'POST', body: '{}', headers: { prefer: 'respond-async' } })).json() as { events: string }
  const events = await new Promise<number>((resolve, reject) => {
    get(`${url}${handle.events}`, { headers: { accept: framing.accept } }, (response) => {
      let count = 0
      let rest = ''
      let last = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => {
        const lines = (rest + chunk).split('\n')
        rest = lines.pop() ?? ''
        for (const line of lines) {
          const event = framing.event(line)
          if (event === undefined) continue
          count++
          last = event
        }
      })
      // A job keeps its last 1000 events: a stream opened late starts there, and ends at the result.
      response.on('end', () => { if (JSON.parse(last).status === 'completed') resolve(count); else reject(new Error(`${name}: the stream ended at ${last}`)) })
    }).on('error', reject)
  })
  return { events, perSecond: events / ((performance.now() - started) / 1000) }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const rates: Record<keyof typeof FRAMINGS, number[]> = { ndjson: [], sse: [] }
const ratios: number[] = []
for (let round = 0; round < rounds; round++) {
  // In turns, the order swapped each round, so neither framing always runs on a warmer process.
  const order = round % 2 === 0 ? (['ndjson', 'sse'] as const) : (['sse', 'ndjson'] as const)
  const got: Partial<Record<keyof typeof FRAMINGS, number>> = {}
  for (const name of order) {
    const { events, perSecond } = await stream(name)
    got[name] = perSecond
    rates[name].push(perSecond)
    console.log(`round ${round + 1} ${name}: ${events} events, ${Math.round(perSecond)} events/s`)
  }
  ratios.push(got.sse! / got.ndjson!)
}
await app.close()
console.log(`median events/s: ndjson ${Math.round(median(rates.ndjson))}, sse ${Math.round(median(rates.sse))}; ` +
  `sse/ndjson per round ${ratios.map((r) => r.toFixed(2)).join(' ')}, median ${median(ratios).toFixed(2)}`)
