// Concurrent posts under a few keys, with bodies the form admits and refuses, in orders a search
// picks: whatever the interleaving, no key runs its act twice, and every answer is one a client
// of that key may get (the first run's bytes, 409, 422, or the bare 204 of a refused body).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import fc from 'fast-check'
import { host } from '../helpers/host.ts'

const posts = fc.array(fc.record({
  key: fc.constantFrom(undefined, 'a', 'b', '"a"', 'c'),
  body: fc.constantFrom('{"note":"x"}', '{"note":"y"}', '{"note":""}', '{ "note":"x"}', '[]'),
  delay: fc.constantFrom(0, 1, 5)
}), { minLength: 1, maxLength: 16 })

describe('posts under keys, interleaved', () => {
  it('never run one key\'s act twice, and answer each post as a client of its key may be answered', async () => {
    let runs = 0
    const { app } = await host({ idempotency: true, act: async (body) => { await sleep(3); return { body, at: ++runs } } })
    let round = 0
    await fc.assert(fc.asyncProperty(posts, async (run) => {
      const prefix = `r${++round}-`
      const before = runs
      const answers = await Promise.all(run.map(async ({ key, body, delay }) => {
        await sleep(delay)
        const headers: Record<string, string> = { 'content-type': 'application/json' }
        // a key and its quoted String are one key
        if (key !== undefined) headers['idempotency-key'] = key.startsWith('"') ? `"${prefix}${key.slice(1)}` : prefix + key
        const response = await app.inject({ method: 'POST', url: '/', payload: body, headers })
        return { key: key?.replaceAll('"', ''), body, status: response.statusCode, text: response.body, replayed: response.headers['idempotent-replayed'] }
      }))
      const accepted = (body: string): boolean => body === '{"note":"x"}' || body === '{"note":"y"}' || body === '{ "note":"x"}'
      const byKey = new Map<string, typeof answers>()
      for (const answer of answers) {
        if (!accepted(answer.body)) assert.deepEqual([answer.status, answer.text], [204, ''])
        else if (answer.key !== undefined) byKey.set(answer.key, [...(byKey.get(answer.key) ?? []), answer])
      }
      const unkeyed = answers.filter((answer) => answer.key === undefined && accepted(answer.body)).length
      for (const [key, list] of byKey) {
        // one post of each key claimed it and ran the act; the rest are its replays, 409s or 422s
        const ran = list.filter((answer) => answer.status === 200 && answer.replayed === undefined)
        assert.equal(ran.length, 1, `${key} ran ${ran.length} times`)
        const first = ran[0]!
        for (const answer of list) {
          if (answer.status === 200) assert.deepEqual([answer.body, answer.text], [first.body, first.text])
          else if (answer.status === 422) assert.ok(answer.body !== first.body && answer.text === '', JSON.stringify(answer))
          else assert.deepEqual([answer.status, answer.text, answer.body], [409, '', first.body])
        }
      }
      // the act ran once a key and once each unkeyed post, and no more
      assert.equal(runs - before, byKey.size + unkeyed)
    }), { numRuns: 60, seed: 20261203 })
    await app.close()
  })
})
