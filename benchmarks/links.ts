// What links cost (docs/links.md): each figure beside the same work without links, in the same run.
//   npm run bench:links [-- --rounds 5 --many 1000 --gets 20000]
// 1. app.ready() of `many` addresses, each naming the next three, against the same addresses naming none.
// 2. One update() of an address whose first sentence changes, named by K addresses (each rebuilds
//    its arrival; its page waits for a request that prefers it), against the same update of an
//    address no one names; and one update() of the target's messages only (an append), which
//    changes nothing its namers say.
// 3. GET of an arrival with three links against one with none (both precomputed bytes), by inject.
// Medians over the rounds; timings only, never asserted.
import { parseArgs } from 'node:util'
import Fastify, { type FastifyInstance } from 'fastify'
import gpt, { type GptAddress, type GptOptions } from '../src/index.ts'

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    many: { type: 'string', default: '1000' },
    gets: { type: 'string', default: '20000' }
  }
})
const rounds = Number(values.rounds)
const many = Number(values.many)
const gets = Number(values.gets)

const form = { type: 'object', properties: { note: { type: 'string', maxLength: 280 } }, required: ['note'], additionalProperties: false }
const base = { form, act: () => ({ ok: true }), rateLimit: false, lint: false, ...(process.env['NO_HTML'] === '1' ? { html: false } : {}) } as const
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN

/** A host of `count` addresses /a0.. (each naming the next `named`), plus /target named by the first `linkers`. */
async function host (count: number, named: number, linkers: number): Promise<{ app: FastifyInstance, ready: number, target: GptAddress }> {
  const app = Fastify()
  let target: GptAddress | undefined
  await app.register(gpt, { ...base, prefix: '/target', prompt: 'Version 0 of the target. It takes notes.', onAddress: (a: GptAddress) => { target = a } } as GptOptions)
  for (let i = 0; i < count; i++) {
    const links = Array.from({ length: named }, (_, k) => `/a${(i + k + 1) % count}`).filter((path) => path !== `/a${i}`)
    await app.register(gpt, { ...base, prefix: `/a${i}`, prompt: `Address ${i}. It takes notes.`, links: i < linkers ? [...links, '/target'] : links } as GptOptions)
  }
  const started = performance.now()
  await app.ready()
  return { app, ready: performance.now() - started, target: target! }
}

// 1. ready()
const readyWith: number[] = []
const readyWithout: number[] = []
for (let round = 0; round < rounds; round++) {
  for (const [named, into] of (round % 2 === 0 ? [[3, readyWith], [0, readyWithout]] : [[0, readyWithout], [3, readyWith]]) as [number, number[]][]) {
    const { app, ready } = await host(many, named, 0)
    into.push(ready)
    await app.close()
  }
}
console.log(`ready() of ${many} addresses naming 3 each: ${median(readyWith).toFixed(0)} ms; naming none: ${median(readyWithout).toFixed(0)} ms; ratio ${(median(readyWith) / median(readyWithout)).toFixed(2)}`)

// 2. update() of a target named by K addresses
for (const linkers of [1, 100, many]) {
  const { app, target } = await host(linkers, 0, linkers)
  const { app: alone, target: lonely } = await host(1, 0, 0)
  const timed = (address: GptAddress, i: number): number => {
    const started = performance.now()
    address.update({ prompt: `Version ${i} of the target. It takes notes.` })
    return performance.now() - started
  }
  const named: number[] = []
  const unnamed: number[] = []
  const appended: number[] = []
  const appendedAlone: number[] = []
  const append = (address: GptAddress, i: number): number => {
    const started = performance.now()
    address.update({ messages: [{ role: 'user', content: `note ${i}` }] })
    return performance.now() - started
  }
  for (let i = 1; i <= rounds * 4; i++) {
    named.push(timed(target, i))
    unnamed.push(timed(lonely, i))
    appended.push(append(target, i))
    appendedAlone.push(append(lonely, i))
  }
  const check = await app.inject('/a0')
  if (!check.body.includes(`Version ${rounds * 4} of the target.`)) throw new Error('the linking address did not describe the new prompt')
  console.log(`update() of an address named by ${linkers}: ${median(named).toFixed(2)} ms; named by none: ${median(unnamed).toFixed(2)} ms; ratio ${(median(named) / median(unnamed)).toFixed(1)}`)
  console.log(`update() of the messages only of an address named by ${linkers}: ${median(appended).toFixed(2)} ms; named by none: ${median(appendedAlone).toFixed(2)} ms; ratio ${(median(appended) / median(appendedAlone)).toFixed(1)}`)
  await Promise.all([app.close(), alone.close()])
}

// 3. GET by inject
{
  const { app } = await host(4, 3, 0)
  const { app: plain } = await host(4, 0, 0)
  const run = async (target: FastifyInstance): Promise<number> => {
    const started = performance.now()
    for (let i = 0; i < gets; i++) {
      const reply = await target.inject('/a0')
      if (reply.statusCode !== 200) throw new Error(`GET answered ${reply.statusCode}`)
    }
    return performance.now() - started
  }
  const withLinks: number[] = []
  const without: number[] = []
  for (let round = 0; round < rounds; round++) {
    withLinks.push(await run(app))
    without.push(await run(plain))
  }
  console.log(`GET of an arrival naming 3 addresses: ${(gets / median(withLinks) * 1000).toFixed(0)}/s; naming none: ${(gets / median(without) * 1000).toFixed(0)}/s (inject); ratio ${(median(without) / median(withLinks)).toFixed(2)}`)
  await Promise.all([app.close(), plain.close()])
}
