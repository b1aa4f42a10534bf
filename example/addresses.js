// The example host's addresses, as options for `app.register(gpt, ...)`: a note board, a poll
// and a slow act. Each call starts with fresh state.
import { setTimeout as sleep } from 'node:timers/promises'

const INTRO = [
  { role: 'user', content: 'What is this place?' },
  { role: 'assistant', content: 'A board where anyone may pin a note.' }
]

/**
 * A public note board: act pins a note and answers with the board. The pinned notes are the
 * arrival's `m`, so the next actor reads them; with `share` (`{ redis }`), every instance serving
 * the board pins to one board through Redis. `notes` are pinned from the start; the board keeps
 * the last `keep`.
 * @param {{ notes?: { note: string, author?: string }[], share?: { redis: object, key?: string }, keep?: number }} [options]
 */
export function noteBoard ({ notes = [], share, keep = 100 } = {}) {
  let board
  const pin = (messages, note) => [...INTRO, ...[...messages.slice(INTRO.length), note].slice(-keep)]
  return {
    prompt: 'A public note board. Leave one short note, signed if you like.',
    messages: [...INTRO, ...notes.map(message)].slice(0, INTRO.length + keep),
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
    ...(share === undefined ? {} : { share }),
    onAddress: (address) => { board = address },
    async act (body, request, reply) {
      try {
        // A function of the current board: with share, applied to the latest stored one, so no pin is lost.
        await board.update((current) => ({ messages: pin(current.messages, message(body)) }))
      } catch (error) {
        request.log.warn({ err: error }, 'note not pinned')
        return reply.code(503).send({ pinned: false, error: error.code })
      }
      const pinned = board.messages.slice(INTRO.length).map((m) => m.content)
      return { pinned: pinned.length, notes: pinned }
    }
  }
}

const message = ({ note, author }) => ({ role: 'user', content: author === undefined ? note : `${note} (${author})` })

/** A poll: act counts a vote and answers with the tally. */
export function poll (votes = { tabs: 0, spaces: 0 }) {
  return {
    prefix: '/poll',
    prompt: 'Vote once: tabs or spaces?',
    form: {
      type: 'object',
      properties: { choice: { enum: ['tabs', 'spaces'], description: 'What you indent with.' } },
      required: ['choice'],
      additionalProperties: false
    },
    type: 'poll',
    // A retry with the same Idempotency-Key and bytes gets the first answer again: one vote (docs/idempotency.md).
    idempotency: true,
    act ({ choice }) {
      votes[choice] += 1
      return votes
    }
  }
}

/**
 * A slow act that outlives its request (docs/jobs.md): counts the letters of each word, a word
 * every `stepMs` ms, reporting each as progress. Still running after `after` ms, its answer is the
 * handle of a job address to follow. With `share` (`{ redis }`), its jobs live in Redis: any
 * instance answers a job's address, control acts and stream, while the act runs where it started.
 * @param {{ stepMs?: number, after?: number, prefix?: string, share?: { redis: object, key?: string } }} [options]
 */
export function slow ({ stepMs = 1000, after = 1500, prefix = '/slow', share } = {}) {
  return {
    prefix,
    prompt: 'Counts the letters of each word you send, slowly: about a second a word. When it takes longer than a moment, the answer names a job address: GET it for the progress and the result.',
    form: {
      type: 'object',
      properties: {
        words: {
          type: 'array',
          items: { type: 'string', minLength: 1, maxLength: 40 },
          minItems: 1,
          maxItems: 10,
          description: 'The words to count, up to 10.'
        }
      },
      required: ['words'],
      additionalProperties: false
    },
    type: 'slow',
    ...(share === undefined ? {} : { share }),
    background: { after, keep: 600_000, maxJobs: 20, poll: 1000 },
    async * act ({ words }, _request, _reply, { signal }) {
      const letters = new Map()
      for (const [i, word] of words.entries()) {
        await sleep(stepMs, undefined, { signal }) // a cancel ends the wait at once
        letters.set(word, [...word].length)
        yield { done: i + 1, of: words.length, message: `"${word}" has ${letters.get(word)} letters` }
      }
      return { letters: Object.fromEntries(letters), total: [...letters.values()].reduce((sum, n) => sum + n, 0) }
    }
  }
}
