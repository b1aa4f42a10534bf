// Generated from src/page/live-script.browser.js by `npm run build:page-scripts`: edit that file, not this one.
/**
 * The script of a running job's page, allowed by its hash beside the page's own. It follows the
 * job's events as server-sent events from the last one the page shows, appends each event's
 * message to the conversation and says the job's state; once the job ends it closes the stream
 * and shows the job's prompt as it now reads.
 * It only ever writes text (textContent), never HTML. Plain browser JavaScript, so the bytes
 * hashed are the bytes served: live-script.browser.js from 'use strict' on.
 */
export const LIVE_SCRIPT = String.raw`
'use strict'
;(() => {
  const state = document.getElementById('progress')
  const list = document.getElementById('messages')
  const ENDED = {
    completed: 'The job has completed: its result is the last message. Reload the page for what it admits now.',
    failed: 'The job has failed. Reload the page for what it admits now.',
    cancelled: 'The job was cancelled. Reload the page for what it admits now.'
  }
  let seen = Number(state.dataset.after)
  const say = (text, kind) => {
    state.textContent = text
    state.dataset.state = kind
  }
  // The job's p says what it is now (its state, when it expires): read it from its arrival.
  const refreshPrompt = async () => {
    try {
      const response = await fetch(location.href, { headers: { accept: 'application/json' } })
      const arrival = await response.json()
      const prompt = document.querySelector('.prompt')
      if (prompt && typeof arrival.p === 'string') prompt.textContent = arrival.p
    } catch {} // the old p stays; the status line already says the job ended
  }
  const source = new EventSource(state.dataset.events + '?after=' + seen)
  source.addEventListener('open', () => say('Working. Its progress appears below as it comes.', 'working'))
  source.addEventListener('message', (event) => {
    const data = JSON.parse(event.data)
    if (data.seq <= seen) return // already shown
    seen = data.seq
    const item = document.createElement('li')
    item.className = 'message assistant'
    const role = document.createElement('span')
    role.className = 'role'
    role.textContent = 'assistant'
    const content = document.createElement('div')
    content.className = 'content'
    content.textContent = data.message
    item.append(role, content)
    list.append(item)
    if (data.status !== 'working') {
      source.close()
      say(ENDED[data.status] || 'The job has ended. Reload the page.', data.status)
      refreshPrompt()
    }
  })
  // An EventSource reconnects by itself (from the last id it saw) unless the answer was not a
  // stream: then the job is gone, or over with nothing more to send.
  source.addEventListener('error', () => {
    if (source.readyState === EventSource.CLOSED) say('Its progress can no longer be followed here: reload the page for the job as it stands.', 'lost')
    else say('The progress stream was cut; reconnecting…', 'waiting')
  })
})()
`
