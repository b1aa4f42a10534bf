// The example host's two addresses, as options for `app.register(gpt, ...)`: a note board and a
// poll. Each call starts with fresh state.

/** A public note board: act pins a note and answers with the board. */
export function noteBoard (notes = []) {
  return {
    prompt: 'A public note board. Leave one short note, signed if you like.',
    messages: [
      { role: 'user', content: 'What is this place?' },
      { role: 'assistant', content: 'A board where anyone may pin a note.' }
    ],
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
  }
}

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
