// An example host with two GPT addresses: a note board at / and a poll at /poll.
//   npm start                     listens on 127.0.0.1:3000 (PORT and HOST override)
//   curl -s localhost:3000        the note board's arrival: {p, m, s}
//   curl -s localhost:3000 -d '{"note":"hello"}'
import Fastify from 'fastify'
import gpt from 'fastify-gpt'
import { noteBoard, poll } from './addresses.js'

const app = Fastify({ logger: { level: process.env.LOG_LEVEL ?? 'info' } })

await app.register(gpt, noteBoard())
await app.register(gpt, poll())

const port = Number(process.env.PORT ?? 3000)
const host = process.env.HOST ?? '127.0.0.1'
await app.listen({ port, host })
