// One host of benchmarks/catalog.ts, in its own process:
//   gpt   `--addresses N` fastify-gpt addresses and fastify-gpt/catalog, the built package (dist/,
//         so `npm run build` first): GET /.well-known/api-catalog sends the catalog's bytes; and
//         beside them a plain route, GET /beside, sending the same bytes as the bare host does
//   bare  one plain Fastify route at the same path sending `--bytes FILE` (the bytes the gpt host
//         sent) with the same Content-Type: the baseline; its process never loads fastify-gpt
// It reports { port, pid } once listening, and closes when asked.
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import Fastify from 'fastify'
import { serve } from './processes.ts'

const { values } = parseArgs({
  options: {
    side: { type: 'string', default: 'gpt' },
    addresses: { type: 'string', default: '1000' },
    bytes: { type: 'string' }
  }
})

const PATH = '/.well-known/api-catalog'
const TYPE = 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"'
const form = { type: 'object', properties: { note: { type: 'string', maxLength: 280 } }, required: ['note'], additionalProperties: false } as const

const app = Fastify()
/** The catalog's bytes, for the gpt host's /beside once it is listening. */
let beside: Buffer | undefined
if (values.side === 'gpt') {
  const [{ default: gpt }, { default: catalog }] = await Promise.all([import('fastify-gpt'), import('fastify-gpt/catalog')])
  await app.register(catalog)
  app.get('/beside', (_request, reply) => reply.header('content-type', TYPE).send(beside))
  for (let i = 0; i < Number(values.addresses); i++) {
    app.register(gpt, { prefix: `/a${i}`, form, act: () => ({ ok: true }), prompt: `Address ${i} of the host. It takes a note of 280 characters at most.`, rateLimit: false, lint: false })
  }
} else if (values.side === 'bare' && values.bytes !== undefined) {
  const body = readFileSync(values.bytes)
  app.get(PATH, (_request, reply) => reply.header('content-type', TYPE).send(body))
} else {
  throw new Error('--side gpt, or --side bare with --bytes FILE')
}
await app.listen({ port: 0, host: '127.0.0.1' })
if (values.side === 'gpt') beside = (await app.inject(PATH)).rawPayload
const address = app.server.address()
serve(async (message) => {
  if (message['type'] === 'close') {
    await app.close()
    setImmediate(() => process.exit(0))
  }
  return {}
})
process.send?.({ port: typeof address === 'object' && address !== null ? address.port : 0, pid: process.pid })
