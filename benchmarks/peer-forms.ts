// The two forms every stack of `npm run bench:peers` serves, their bodies and what the acts answer.
// Imported by the hosts (benchmarks/peer-host.ts) and the orchestrator (benchmarks/peers.ts), so
// every process builds the same bytes.
import { Buffer } from 'node:buffer'
import { noteBoard } from '../example/addresses.js'

/** The example's note board (example/addresses.js): one short note, signed if you like. */
export const noteForm = noteBoard().form

/** A to-do list: a title and many small nested objects (the shape of most tool inputs). */
export const todoForm = {
  type: 'object',
  properties: {
    title: { type: 'string', minLength: 1, maxLength: 200 },
    items: {
      type: 'array',
      maxItems: 2000,
      items: {
        type: 'object',
        properties: {
          id: { type: 'integer', minimum: 0 },
          text: { type: 'string', minLength: 1, maxLength: 200 },
          done: { type: 'boolean' },
          tags: { type: 'array', maxItems: 8, items: { type: 'string', maxLength: 20 } }
        },
        required: ['id', 'text', 'done'],
        additionalProperties: false
      }
    }
  },
  required: ['title', 'items'],
  additionalProperties: false
} as const

export const notePrompt = 'A public note board. Leave one short note, signed if you like.'
export const todoPrompt = 'A to-do list. Send the whole list: a title and its items.'
export const intro = [
  { role: 'user', content: 'What is this place?' },
  { role: 'assistant', content: 'A board where anyone may pin a note.' }
]

/** The note board's arrival, as fastify-gpt sends it: a bare host sends the same bytes. */
export const noteArrival = Buffer.from(JSON.stringify({ p: notePrompt, m: intro, s: noteForm }))

/** What the note board's act answers: the note it received, as it received it. */
export const noteReceipt = (body: { note: string, author?: string | undefined }): unknown => ({ pinned: true, received: body })
/** What the to-do act answers. */
export const todoReceipt = (body: { items: readonly unknown[] }): unknown => ({ saved: true, items: body.items.length })

/** What the acts answer, as result forms (the gpt-result stack's `result`): forms the compiled serializer takes (src/address/serialize.ts). */
export const noteResult = {
  type: 'object',
  properties: {
    pinned: { type: 'boolean' },
    received: { type: 'object', properties: { note: { type: 'string', maxLength: 280 }, author: { type: 'string', maxLength: 40 } }, required: ['note'], additionalProperties: false }
  },
  required: ['pinned', 'received'],
  additionalProperties: false
} as const
export const todoResult = {
  type: 'object',
  properties: { saved: { type: 'boolean' }, items: { type: 'integer', minimum: 0 } },
  required: ['saved', 'items'],
  additionalProperties: false
} as const

/** Every stack's body limit: the 64 KB list fits. */
export const BODY_LIMIT = 128 * 1024

const WORDS = ['buy', 'oat milk', 'call', 'Zoë', 'fix', 'the bike', 'book', 'train to Köln', 'write', 'reply ✓', 'water', 'plants']
const TAGS = ['home', 'work', 'errand', 'soon', 'later']

/** A to-do list whose JSON text is about `bytes` long (items of 60 to 90 bytes each). */
export function todoOf (bytes: number): string {
  const list: { title: string, items: { id: number, text: string, done: boolean, tags?: string[] }[] } = { title: 'This week', items: [] }
  let length = Buffer.byteLength(JSON.stringify(list))
  for (let id = 0; ; id++) {
    const item = {
      id,
      text: `${WORDS[id % WORDS.length] as string} ${WORDS[(id * 7 + 3) % WORDS.length] as string}`,
      done: id % 3 === 0,
      ...(id % 2 === 0 ? { tags: [TAGS[id % TAGS.length] as string, TAGS[(id + 2) % TAGS.length] as string] } : {})
    }
    length += Buffer.byteLength(JSON.stringify(item)) + (id === 0 ? 0 : 1) // and a comma
    if (length > bytes) break
    list.items.push(item)
  }
  return JSON.stringify(list)
}

export const bodies = {
  /** A note of about 70 bytes, signed. */
  note: JSON.stringify({ note: 'Back at 3, the key is under the mat ✓', author: 'Zoë' }),
  /** About 1 KB: 17 small nested objects. */
  todo1k: todoOf(1024),
  todo4k: todoOf(4096),
  todo64k: todoOf(64 * 1024),
  /** Refused by every stack: the note is missing (about 70 bytes, as the accepted note). */
  refused: JSON.stringify({ author: 'Zoë, who forgot to write the note itself', nt: 'x' })
}
