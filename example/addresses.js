// The example host's two addresses, as options for `app.register(gpt, ...)`: a note board and a
// poll. Each call starts with fresh state.

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
    act ({ choice }) {
      votes[choice] += 1
      return votes
    }
  }
}
