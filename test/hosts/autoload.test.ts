import assert from 'node:assert/strict'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import autoload from '@fastify/autoload'
import Fastify from 'fastify'
import { arrivalNeedsNothingAndNeverVaries, everyRejectionTheSameBare204 } from '../helpers/beside.ts'

describe('an address in a folder @fastify/autoload loads', () => {
  it('answers at the folder\'s prefix and keeps the draft\'s invariants', async () => {
    const app = Fastify()
    const seen: unknown[] = []
    await app.register(autoload, { dir: join(import.meta.dirname, '../fixtures/autoload'), options: { seen } })
    await app.ready()
    await arrivalNeedsNothingAndNeverVaries(app, '/notes', [{ method: 'POST', url: '/notes', payload: '{"note":"a"}' }])
    const act = await app.inject({ method: 'POST', url: '/notes', payload: '{"note":"exact ✓"}', headers: { 'content-type': 'text/plain' } })
    assert.equal(act.statusCode, 200)
    assert.deepEqual(seen.at(-1), { note: 'exact ✓' })
    await everyRejectionTheSameBare204(app, '/notes', [{ payload: '{"note":""}' }, { payload: '{"note":"a","note":"a"}' }])
    assert.equal(seen.length, 2)
    await app.close()
  })
})
