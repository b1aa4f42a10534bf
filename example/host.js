// An example host with two GPT addresses: a note board at / and a poll at /poll.
//   npm start                     listens on 127.0.0.1:3000 (PORT and HOST override)
//   curl -s localhost:3000        the note board's arrival: {p, m, s}
//   curl -s localhost:3000 -d '{"note":"hello"}'
import Fastify from 'fastify'
import gpt from 'fastify-gpt'

const notes = []
const votes = { tabs: 0, spaces: 0 }

const app = Fastify({ logger: { level: process.env.LOG_LEVEL ?? 'info' } })

await app.register(gpt, {
  prompt: 'A public note board. Leave one short note, signed if you like.',
  messages: [{ role: 'user', content: 'What is this place?' }, { role: 'assistant', content: 'A board where anyone may pin a note.' }],
  form: {
    type: 'object',
    properties: {
      note: { type: 'string', minLength: 1, maxLength: 280, description: 'The note, up to 280 characters.' },
      author: { type: 'string', maxLength: 40, description: 'Optional signature.' }
    },
    required: ['note'],
    additionalProperties: false
  },
  type: 'note-board',
  act (body) {
    notes.push(body)
    if (notes.length > 100) notes.shift()
    return { pinned: notes.length, notes }
  }
})

await app.register(gpt, {
  prefix: '/poll',
  prompt: 'Vote once: tabs or spaces?',
  form: {
    type: 'object',
    properties: { choice: { enum: ['tabs', 'spaces'] } },
    required: ['choice'],
    additionalProperties: false
  },
  type: 'poll',
  act ({ choice }) {
    votes[choice] += 1
    return votes
  }
})

const port = Number(process.env.PORT ?? 3000)
const host = process.env.HOST ?? '127.0.0.1'
await app.listen({ port, host })
