// The example host as a newcomer runs it, `OTEL=console npm start` (example/telemetry.js; built:
// it imports the package): a refused body's stage and keyword on stderr, the actor's bare 204 alone.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { it } from 'node:test'
import { stopChild } from '../helpers/child-host.ts'
import { freePort } from '../helpers/port.ts'

/** Resolves once `stream` has printed a line that `wanted` accepts; rejects after `ms`. */
function lineOf (stream: NodeJS.ReadableStream, wanted: (line: string) => boolean, ms = 30_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = ''
    const timer = setTimeout(() => { reject(new Error(`no such line within ${ms} ms; printed: ${out}`)) }, ms)
    const onData = (chunk: Buffer): void => {
      out += chunk.toString()
      const found = out.split('\n').slice(0, -1).find(wanted)
      if (found === undefined) return
      clearTimeout(timer)
      stream.off('data', onData)
      resolve(found)
    }
    stream.on('data', onData)
  })
}

it('OTEL=console npm start: the refusal\'s reason on stderr, its answer the bare 204', async (t) => {
  const port = await freePort()
  const child = spawn(process.execPath, ['example/host.js'], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', OTEL: 'console', OTEL_METRIC_EXPORT_INTERVAL: '200', RATE_MAX: '0' },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  t.after(() => stopChild(child))
  const spans = lineOf(child.stderr, (line) => line.includes('gpt.refusal.stage=schema'))
  const counted = lineOf(child.stderr, (line) => line.startsWith('otel metric gpt.act.refusals 1 '))
  await lineOf(child.stdout, (line) => line.includes('Server listening'))
  const reply = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{"note":""}' })
  assert.equal(reply.status, 204)
  assert.equal(await reply.text(), '')
  assert.equal(reply.headers.get('content-type'), null)
  const span = await spans
  assert.match(span, /^otel span request POST \/ /)
  for (const part of ['gpt.refusal.keyword=minLength', 'gpt.refusal.schema_path=#/properties/note/minLength', 'gpt.refusal.instance_path=/note', 'gpt.outcome=refused', 'http.response.status_code=204']) {
    assert.ok(span.includes(part), part)
  }
  assert.match(await counted, /gpt\.address=\/ gpt\.refusal\.stage=schema gpt\.via=http gpt\.refusal\.keyword=minLength/)
  child.kill()
  await once(child, 'exit')
})
