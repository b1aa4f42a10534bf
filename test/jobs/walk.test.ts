// The walk of docs/jobs.md, as an actor with nothing but curl and jq follows it, against a
// listening host serving the example's slow address (example/addresses.js).
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { after, before, describe, it } from 'node:test'
import { promisify } from 'node:util'
import Fastify, { type FastifyInstance } from 'fastify'
import gpt, { type GptOptions } from '../../src/index.ts'
import { slow } from '../../example/addresses.js'

const run = promisify(execFile)
const sh = async (script: string, env: Record<string, string>): Promise<string> =>
  (await run('bash', ['-c', `set -euo pipefail\n${script}`], { env: { ...process.env, ...env }, timeout: 60_000 })).stdout

describe('the curl + jq walk of docs/jobs.md', () => {
  let app: FastifyInstance
  let h: string

  before(async () => {
    app = Fastify()
    // /slow counts a word every 5 ms; /slower a word every ten minutes, so a job there is still
    // working when it is cancelled, however loaded the machine.
    await app.register(gpt, { ...slow({ stepMs: 5, after: 60_000 }), rateLimit: false } as unknown as GptOptions)
    await app.register(gpt, { ...slow({ stepMs: 600_000, after: 60_000, prefix: '/slower' }), rateLimit: false } as unknown as GptOptions)
    h = await app.listen({ port: 0, host: '127.0.0.1' })
  })
  after(() => app.close())

  it('starts a job, follows its progress, reads its result', async () => {
    const out = await sh(`
      r=$(curl -s "$h/slow" -H 'Prefer: respond-async' -d '{"words":["tabs","or","spaces"]}')
      j="$h$(jq -r .href <<<"$r")"
      curl -sN "$j/events" | jq -c --unbuffered 'select(.status == "working") | .progress.message'
      curl -s "$j" | jq -c '{status, result}'
      curl -s "$j" | jq -r '.m[-1].content'
      curl -sN "$j/events" -H 'Accept: text/event-stream' | sed -n 's/^data: //p' | jq -r .message
    `, { h })
    assert.equal(out, [
      '"\\"tabs\\" has 4 letters"',
      '"\\"or\\" has 2 letters"',
      '"\\"spaces\\" has 6 letters"',
      '{"status":"completed","result":{"letters":{"tabs":4,"or":2,"spaces":6},"total":12}}',
      'Completed. The result: {"letters":{"tabs":4,"or":2,"spaces":6},"total":12}',
      '"tabs" has 4 letters',
      '"or" has 2 letters',
      '"spaces" has 6 letters',
      'Completed. The result: {"letters":{"tabs":4,"or":2,"spaces":6},"total":12}',
      ''
    ].join('\n'))
  })

  it('without Prefer, an act that answers in time is answered as ever', async () => {
    const out = await sh('curl -s "$h/slow" -d \'{"words":["hi"]}\'', { h })
    assert.equal(out, '{"letters":{"hi":2},"total":2}')
  })

  it('cancels a job: the form admits cancel while it works, then only forget', async () => {
    const out = await sh(`
      r=$(curl -si "$h/slower" -H 'Prefer: respond-async' -d '{"words":["slow"]}')
      grep -i '^link:' <<<"$r" | tr -d '\\r' | sed 's|/slower/jobs/[A-Za-z0-9_-]*|<job>|'
      j="$h$(tail -n1 <<<"$r" | jq -r .href)"
      curl -s "$j" | jq -c '[.status, .s.properties.do.const]'
      curl -s "$j" -d '{"do":"cancel"}'; echo
      curl -s -o /dev/null -w '%{http_code}\\n' "$j" -d '{"do":"cancel"}'
      curl -s "$j" | jq -c '[.status, .s.properties.do.const]'
      curl -sN "$j/events" | jq -c .
      curl -s "$j" -d '{"do":"forget"}'; echo
      curl -s -o /dev/null -w '%{http_code}\\n' "$j"
    `, { h })
    assert.equal(out, [
      'link: <<job>>; rel="monitor"',
      '["working","cancel"]',
      '{"status":"cancelled"}',
      '204',
      '["cancelled","forget"]',
      '{"seq":1,"status":"cancelled"}',
      '{"status":"forgotten"}',
      '404',
      ''
    ].join('\n'))
  })
})
