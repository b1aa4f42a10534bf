// Generated from src/page/script.browser.js by `npm run build:page-scripts`: edit that file, not this one.
/**
 * The page's one script, allowed by its hash in the Content-Security-Policy. It reads the inputs
 * that inputs.ts generated back into a JSON value, keeps the JSON body in step with them, and
 * POSTs the body to the page's own address, or, in an MCP host's view, hands it to the view's door
 * (view-script.browser.js: the host's tools/call). It only ever writes text (textContent, value),
 * never HTML. Plain browser JavaScript, so the bytes hashed are the bytes served:
 * script.browser.js from 'use strict' on.
 */
export const SCRIPT = String.raw`
'use strict'
;(() => {
  const form = document.getElementById('act')
  const root = form.querySelector('.node')
  const body = document.getElementById('body')
  const note = document.getElementById('body-note')
  const fromInputs = document.getElementById('from-inputs')
  const button = document.getElementById('act-button')
  const outcome = document.getElementById('outcome')
  let byHand = false
  let problem = ''
  let sending = false
  let copies = 0

  const kids = (el, selector) => Array.from(el.children).filter((child) => child.matches(selector))
  const kid = (el, selector) => kids(el, selector)[0]

  // What the inputs cannot yet make into a value the form admits, found while reading them: each
  // says where it is (member names and item numbers) and keeps the node to take the focus.
  let issues = []
  const where = (path) => path.length === 0 ? 'body' : path.join(' › ')
  const MISSING = {
    enum: 'choose one',
    number: 'fill in a number',
    integer: 'fill in a whole number',
    json: 'write its JSON',
    never: 'the form allows no value here'
  }

  // The value of a node. Needed: leaving it out makes no body the form admits (a required member,
  // a list item, the body itself).
  function read (node, path, needed) {
    const kind = node.dataset.kind
    if (kind === 'anyOf') {
      const chosen = kids(node, '.alt').find((alt) => !alt.hidden)
      return read(kid(chosen, '.node'), path, needed)
    }
    const v = value(node, path)
    if (v === undefined && needed) issues.push({ node, text: where(path) + ': ' + (MISSING[kind] || 'fill it in') })
    if (v !== undefined) check(node, path, v)
    return v
  }

  // The value of one .node, by its data-kind; undefined means "no value" (left out of an object).
  function value (node, path) {
    const kind = node.dataset.kind
    const input = node.querySelector('.value')
    if (kind === 'object') {
      const result = {}
      kids(node, '.field').forEach((field) => {
        if (field.classList.contains('omitted')) return
        const v = read(kid(field, '.node'), path.concat(field.dataset.name), !field.hasAttribute('data-optional'))
        if (v !== undefined) result[field.dataset.name] = v
      })
      return result
    }
    if (kind === 'array') {
      return kids(kid(node, '.items'), '.item').map((item, i) => {
        const v = read(kid(item, '.node'), path.concat('item ' + (i + 1)), true)
        return v === undefined ? null : v
      })
    }
    if (kind === 'string') return input.value
    if (kind === 'number' || kind === 'integer') {
      if (input.validity.badInput) throw new Error(where(path) + ': this is not a number')
      return input.value === '' ? undefined : Number(input.value)
    }
    if (kind === 'boolean') return input.checked
    if (kind === 'enum' || kind === 'tristate') {
      const picked = input.tagName === 'SELECT' ? input : node.querySelector('.value:checked')
      return picked && picked.value !== '' ? JSON.parse(picked.value) : undefined
    }
    if (kind === 'const') return JSON.parse(node.dataset.value)
    if (kind === 'json') {
      if (input.value.trim() === '') return undefined
      try {
        return JSON.parse(input.value)
      } catch {
        throw new Error(where(path) + ': this is not JSON')
      }
    }
    return undefined
  }

  // What the inputs already know, so that Act does not send what the form refuses: lengths (in
  // code points, as JSON Schema counts), a date picked, the pattern (with the u flag, as the
  // address compiles it), numeric bounds. Anything else is for the address to judge.
  function check (node, path, v) {
    const d = node.dataset
    const say = (text) => issues.push({ node, text: where(path) + ': ' + text })
    if (d.kind === 'string') {
      const length = Array.from(v).length
      if (d.minLength && length < Number(d.minLength)) say(length === 0 ? 'fill it in' : 'at least ' + d.minLength + ' characters')
      else if (d.maxLength && length > Number(d.maxLength)) say('at most ' + d.maxLength + ' characters')
      else if (d.format === 'date' && v === '') say('choose a date')
      else if (d.pattern !== undefined && !matches(d.pattern, v)) say('does not match the pattern ' + d.pattern)
    } else if (d.kind === 'number' || d.kind === 'integer') {
      if (d.kind === 'integer' && !Number.isInteger(v)) say('a whole number')
      else if (d.minimum !== undefined && v < Number(d.minimum)) say('at least ' + d.minimum)
      else if (d.maximum !== undefined && v > Number(d.maximum)) say('at most ' + d.maximum)
      else if (d.exclusiveMinimum !== undefined && v <= Number(d.exclusiveMinimum)) say('more than ' + d.exclusiveMinimum)
      else if (d.exclusiveMaximum !== undefined && v >= Number(d.exclusiveMaximum)) say('less than ' + d.exclusiveMaximum)
    }
  }

  function matches (pattern, text) {
    try {
      return new RegExp(pattern, 'u').test(text)
    } catch {
      return true // a pattern this browser cannot compile: the address judges
    }
  }

  // Inputs -> JSON body, on every change: the body is always exactly what Act sends.
  function sync () {
    byHand = false
    issues = []
    try {
      const v = read(root, [], true)
      problem = ''
      body.value = v === undefined ? '' : JSON.stringify(v, null, 2)
    } catch (error) {
      problem = error.message
    }
    tell()
  }

  function list (lines) {
    const ul = document.createElement('ul')
    ul.className = 'issues'
    ul.append(...lines.map((line) => {
      const li = document.createElement('li')
      li.textContent = line
      return li
    }))
    return ul
  }

  function tell () {
    fromInputs.hidden = !byHand
    note.className = 'hint' + (byHand ? '' : problem !== '' ? ' problem' : issues.length > 0 ? ' pending' : '')
    if (byHand) return note.replaceChildren('Written by hand: Act sends this text as it is. Changing an input writes it anew.')
    if (problem !== '') return note.replaceChildren(problem)
    if (issues.length > 0) return note.replaceChildren('Still needed before Act sends it:', list(issues.map((i) => i.text)))
    note.replaceChildren('Written from the inputs. Edit it to send anything the inputs cannot express.')
  }

  // Filling in a member that may be left out includes it, and every member around it.
  function include (from) {
    for (let field = from.closest('.field'); field; field = field.parentElement.closest('.field')) {
      if (field.classList.contains('omitted')) {
        field.classList.remove('omitted')
        const on = kid(field, '.node').querySelector('.include')
        if (on) on.checked = true
      }
    }
  }

  // A copy of a template gets ids and radio names of its own.
  function rename (copy) {
    const suffix = '-' + (++copies)
    copy.querySelectorAll('[id]').forEach((el) => { el.id += suffix })
    copy.querySelectorAll('label[for]').forEach((el) => { el.htmlFor += suffix })
    copy.querySelectorAll('[aria-describedby]').forEach((el) => {
      el.setAttribute('aria-describedby', el.getAttribute('aria-describedby') + suffix)
    })
    copy.querySelectorAll('input[type=radio]').forEach((el) => { el.name += suffix })
  }

  function add (array) {
    const item = kid(array, 'template').content.firstElementChild.cloneNode(true)
    rename(item)
    kid(array, '.items').append(item)
    grow(item)
    number(array)
    return item
  }

  // Numbers the items; Add and Remove keep the count within minItems and maxItems.
  function number (array) {
    const items = kids(kid(array, '.items'), '.item')
    const min = Number(array.dataset.min)
    const max = array.dataset.max === undefined ? Infinity : Number(array.dataset.max)
    items.forEach((item, i) => {
      const index = item.querySelector('.index')
      if (index) index.textContent = String(i + 1)
      const remove = kid(item, '.remove')
      remove.disabled = items.length <= min
      remove.setAttribute('aria-label', 'Remove item ' + (i + 1))
    })
    kid(array, '.add').disabled = items.length >= max
  }

  // Every list starts with minItems items.
  function grow (scope) {
    scope.querySelectorAll('[data-kind=array]').forEach((array) => {
      while (kids(kid(array, '.items'), '.item').length < Number(array.dataset.min)) add(array)
      number(array)
    })
  }

  function changed (event) {
    const target = event.target
    if (target === body) {
      if (event.type === 'input') {
        byHand = true
        tell()
      }
      return
    }
    const tristate = target.closest('[data-kind=tristate]')
    if (target.classList.contains('include') || tristate) {
      const field = target.closest('.field')
      const on = tristate ? target.value !== '' : target.checked
      field.classList.toggle('omitted', !on)
      if (on) include(field.parentElement)
    } else {
      if (target.classList.contains('pick')) {
        kids(target.closest('.node'), '.alt').forEach((alt, i) => { alt.hidden = String(i) !== target.value })
      }
      include(target)
    }
    sync()
  }

  form.addEventListener('input', changed)
  form.addEventListener('change', changed)

  form.addEventListener('click', (event) => {
    const clicked = event.target.closest('button')
    if (!clicked) return
    if (clicked === fromInputs) {
      sync()
      body.focus()
    } else if (clicked.classList.contains('add')) {
      const item = add(clicked.closest('.node'))
      include(clicked)
      sync()
      const first = item.querySelector('input, select, textarea, button')
      if (first) first.focus()
    } else if (clicked.classList.contains('remove')) {
      const gone = clicked.closest('.item')
      const array = gone.closest('.node')
      gone.remove()
      number(array)
      include(array)
      sync()
      kid(array, '.add').focus()
    }
  })

  // Enter in a one-line input does not send a half-filled form: Act is a button of its own.
  form.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && event.target.tagName === 'INPUT' && event.target.type !== 'submit') event.preventDefault()
  })

  // detail: text shown as it is, or a list of lines.
  function show (kind, message, detail) {
    outcome.className = 'outcome ' + kind
    const line = document.createElement('p')
    line.textContent = message
    outcome.replaceChildren(line)
    if (Array.isArray(detail)) {
      outcome.append(list(detail))
    } else if (detail !== undefined) {
      const pre = document.createElement('pre')
      pre.textContent = detail
      outcome.append(pre)
    }
  }

  function pretty (text) {
    try {
      return JSON.stringify(JSON.parse(text), null, 2)
    } catch {
      return text
    }
  }

  // What an answer to the POST means, as show() takes it.
  function answered (status, answer, wait) {
    if (status === 200) return ['done', 'Done (200). The address answered:', pretty(answer)]
    if (status === 204) return ['rejected', 'Rejected (204): the address did not take this body. It never says why; compare the body with the form.']
    if (status === 422) return ['rejected', 'Rejected (422). The address explains:', pretty(answer)]
    if (status === 429) return ['limited', 'Rate limited (429): too many requests from here. Try again ' + (wait ? 'in ' + wait + ' s.' : 'later.')]
    return ['problem', 'The address answered ' + status + '.', answer === '' ? undefined : pretty(answer)]
  }

  async function post (text) {
    try {
      const response = await fetch(location.href, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text })
      return answered(response.status, await response.text(), response.headers.get('retry-after'))
    } catch (error) {
      return ['problem', 'The address could not be reached: ' + error.message]
    }
  }

  // In an MCP host's view the act goes through the host, which also tells of acts made elsewhere.
  const door = window.gptDoor
  if (door) door.show = show

  // Act: POST exactly the JSON body to this very address (or hand it to the view's door).
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    if (sending) return
    if (!byHand && problem !== '') return show('problem', 'Nothing was sent. ' + problem)
    if (!byHand && issues.length > 0) {
      show('problem', 'Nothing was sent: the form would refuse this body. Still needed:', issues.map((i) => i.text))
      const first = issues[0].node.querySelector('input:not(.include), select, textarea')
      if (first) first.focus()
      return
    }
    const text = body.value
    try {
      JSON.parse(text)
    } catch (error) {
      return show('problem', text.trim() === '' ? 'Nothing was sent: the JSON body is empty.' : 'Nothing was sent: the JSON body is not JSON (' + error.message + ').')
    }
    sending = true
    button.setAttribute('aria-disabled', 'true')
    show('busy', 'Sending…')
    try {
      show(...await (door ? door.act(text) : post(text)))
    } finally {
      sending = false
      button.removeAttribute('aria-disabled')
    }
  })

  const here = location.origin + location.pathname
  document.querySelectorAll('.here').forEach((el) => { el.textContent = "'" + here.replace(/'/g, "'\\''") + "'" })
  grow(form)
  sync()
  document.documentElement.classList.add('live')
})()
`
