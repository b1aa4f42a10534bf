// Throughput of the example host on 1 process vs 2 (node:cluster), for docs/deploying.md.
//   npm run bench:cluster [-- --rounds 5 --duration 5]
// Alternates 1 and 2 workers round by round and prints medians. This process is the load
// generator (autocannon); on a 2-core machine it competes with the workers, as a real load
// balancer or proxy on the same machine would.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'
import { freePort } from '../test/helpers/port.ts'

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '5' }, duration: { type: 'string', default: '5' } } })
const rounds = Number(values.rounds)
const duration = Number(values.duration)

async function start (workers: number): Promise<{ child: ChildProcess, url: string }> {
  const port = await freePort()
  const child = spawn(process.execPath, ['example/cluster.js'], {
    env: { ...process.env, WORKERS: String(workers), PORT: String(port), RATE_MAX: '0', LOG_LEVEL: 'error' },
    stdio: 'inherit'
  })
  const url = `http://127.0.0.1:${port}`
  for (let i = 0; i < 100; i++) {
    const up = await fetch(url).then((r) => r.ok, () => false)
    if (up) return { child, url }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error('the host did not start')
}

const scenarios = {
  get: { method: 'GET' as const },
  post: { method: 'POST' as const, body: JSON.stringify({ note: 'A note of some forty characters or so, é.', author: 'bench' }) }
}
type Name = keyof typeof scenarios
const results: Record<string, number[]> = {}

for (let round = 0; round < rounds; round++) {
  for (const workers of [1, 2]) {
    const { child, url } = await start(workers)
    for (const name of Object.keys(scenarios) as Name[]) {
      const result = await autocannon({ url, connections: 50, pipelining: 10, duration, ...scenarios[name] })
      if (result.non2xx > 0 || result.errors > 0) throw new Error(`${name}: ${result.non2xx} non-2xx, ${result.errors} errors`)
      ;(results[`${name} ${workers}`] ??= []).push(result.requests.average)
    }
    child.kill()
    await once(child, 'exit')
  }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number
console.log('scenario | 1 process req/s | 2 processes req/s | ratio')
for (const name of Object.keys(scenarios)) {
  const one = median(results[`${name} 1`] ?? [])
  const two = median(results[`${name} 2`] ?? [])
  console.log(`${name} | ${Math.round(one)} | ${Math.round(two)} | ${(two / one).toFixed(2)}`)
}
