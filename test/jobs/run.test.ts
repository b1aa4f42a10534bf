// An act with background (src/jobs/run.ts) that answers by itself, through the reply, and goes on:
// there is nothing to hand off, and no job may keep its place.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import Fastify from 'fastify'
import gpt from '../../src/index.ts'
import { gate } from '../helpers/jobs.ts'

describe('background: an act that sent its own answer before the hand-off', () => {
  it('answers with what the act sent, no job address, and frees its place for the next act', async () => {
    const app = Fastify()
    const g = gate()
    let acts = 0
    await app.register(gpt, {
      form: { type: 'object' },
      rateLimit: false,
      background: { maxJobs: 1 },
      act: async (_body, _request, reply) => {
        acts++
        await reply.code(200).send({ answered: acts })
        await g.promise // goes on after its answer: past the hand-off
        return { never: 'sent' }
      }
    })
    for (const expected of [1, 2, 3]) {
      const response = await app.inject({ method: 'POST', url: '/', payload: '{}', headers: { 'content-type': 'application/json', prefer: 'respond-async' } })
      assert.equal(response.statusCode, 200)
      assert.deepEqual(response.json(), { answered: expected })
      assert.equal(response.headers['link'], undefined, 'no job address')
      assert.equal(response.headers['preference-applied'], undefined)
    }
    g.open()
    await app.close()
  })
})
