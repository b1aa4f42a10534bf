// The page in a real browser: Debian's Chromium (apt-get install chromium; or set CHROMIUM to
// another build), driven by playwright-core, against a real host on 127.0.0.1.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import Fastify, { type FastifyInstance } from 'fastify'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { poll } from '../../example/addresses.js'
import gpt from '../../src/index.ts'
import { plan } from '../fixtures/plan.ts'
import { launchChromium, watchProblems } from '../helpers/chromium.ts'

const EVIL = '<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2">'

// Typed loosely (object): inferring act's body type from a form this size costs the type checker more than it tells.
const nested: object = {
  type: 'object',
  properties: {
    title: { type: 'string', minLength: 1, maxLength: 60, description: `A short title. ${EVIL}` },
    summary: { type: 'string', maxLength: 200 },
    count: { type: 'integer', minimum: 1, maximum: 10 },
    urgent: { type: 'boolean' },
    color: { enum: ['red', 'green', 'blue'] },
    kind: { const: 'plan' },
    ...plan.properties
  },
  ...plan.rest
}

const note = {
  type: 'object',
  properties: { note: { type: 'string', minLength: 1, maxLength: 20 } },
  required: ['note'],
  additionalProperties: false
} as const

// Values the inputs show differently: a map (JSON), a type list, null, a tagged oneOf, a long enum,
// one-line strings (a pattern, a format), and a boolean that may be left out.
const odd = {
  type: 'object',
  properties: {
    map: { type: 'object', additionalProperties: { type: 'integer' } },
    maybe: { type: ['string', 'null'], maxLength: 5 },
    nothing: { type: 'null' },
    shape: {
      oneOf: [
        { type: 'object', properties: { kind: { const: 'circle' }, r: { type: 'number' } }, required: ['kind', 'r'], additionalProperties: false },
        { type: 'object', properties: { kind: { const: 'square' }, side: { type: 'number' } }, required: ['kind', 'side'], additionalProperties: false }
      ]
    },
    size: { enum: [1, 2, 3, 4, 5, 6, 7, 8] },
    sku: { type: 'string', pattern: '^[A-Z]{3}-\\d{4}$' },
    email: { type: 'string', format: 'email' },
    pinned: { type: 'boolean' }
  },
  required: ['map', 'maybe', 'nothing', 'shape', 'size', 'sku'],
  additionalProperties: false
}

// A list the form requires 100,000 items of (the page used never to finish loading), beside a few.
const many = {
  type: 'object',
  properties: {
    lots: { type: 'array', minItems: 100_000, items: { type: 'string' } },
    few: { type: 'array', minItems: 3, maxItems: 3, items: { type: 'integer' } }
  },
  required: ['lots', 'few'],
  additionalProperties: false
}

/** A body the nested form admits, for the raw editor. */
const valid = { title: 'By hand', count: 2, urgent: false, color: 'red', kind: 'plan', tasks: [{ what: 'w', done: true }], contact: 'a@b.c' }

let app: FastifyInstance
let base: string
let browser: Browser
const seen: unknown[] = []
const votes = { tabs: 0, spaces: 0 }
const contexts: BrowserContext[] = []

before(async () => {
  app = Fastify()
  const act = (body: unknown) => {
    seen.push(body)
    return { received: body }
  }
  await app.register(gpt, {
    form: nested,
    act,
    rateLimit: false,
    prompt: 'Plan a small project.',
    messages: [{ role: 'user', content: 'How do I start?' }, { role: 'assistant', content: 'Give it a title.' }]
  })
  await app.register(gpt, { prefix: '/evil', form: nested, act, rateLimit: false, prompt: EVIL, messages: [{ role: EVIL, content: EVIL }] })
  await app.register(gpt, { prefix: '/odd', form: odd, act, rateLimit: false })
  await app.register(gpt, { prefix: '/limited', form: note, act, rateLimit: { max: 2, timeWindow: 60_000 } })
  await app.register(gpt, { ...poll(votes), rateLimit: false })
  await app.register(gpt, { prefix: '/many', form: many, act, rateLimit: false })
  base = await app.listen({ host: '127.0.0.1', port: 0 })
  browser = await launchChromium()
})

after(async () => {
  await browser?.close()
  await app?.close()
})

/** Opens an address's page, recording console errors, page errors and CSP violations. */
async function open (path: string): Promise<{ page: Page, problems: () => Promise<string[]> }> {
  const context = await browser.newContext()
  contexts.push(context)
  const page = await context.newPage()
  const problems = await watchProblems(page)
  await page.goto(base + path)
  await page.locator('html.live').waitFor() // the page's script ran to its end
  return { page, problems }
}

const outcome = (page: Page) => page.locator('#outcome')
const bodyText = async (page: Page): Promise<unknown> => JSON.parse(await page.locator('#body').inputValue())

async function act (page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Act', exact: true }).click()
  await page.locator('#outcome:not(.busy):not(:empty)').waitFor()
}

describe('the page in a browser', () => {
  after(async () => { for (const context of contexts) await context.close() })

  it('loads with no console error and no CSP violation, and composes the body at once', async () => {
    for (const path of ['/', '/evil', '/odd']) { // '/limited' counts its requests: its own test opens it
      const { page, problems } = await open(path)
      assert.deepEqual(await problems(), [], path)
      if (path === '/') {
        assert.deepEqual(await bodyText(page), { title: '', urgent: false, kind: 'plan', tasks: [{ what: '', done: false }], contact: '' })
        assert.deepEqual(await page.locator('#body-note li').allTextContents(), ['title: fill it in', 'count: fill in a whole number', 'color: choose one'])
        assert.equal(await page.getByRole('button', { name: 'Remove item 1' }).isDisabled(), true, 'minItems 1')
      }
    }
  })

  it('loads a form requiring 100,000 items: that list is written as JSON, a short one gets its inputs', async () => {
    const { page, problems } = await open('/many')
    assert.deepEqual(await problems(), [])
    assert.equal(await page.locator('[data-name="few"] .item').count(), 3)
    assert.equal(await page.locator('[data-name="lots"] [data-kind="json"] textarea').count(), 1)
    assert.match(await page.locator('[data-name="lots"] .hint').textContent() ?? '', /at least 100000 items/)
    await page.locator('[data-name="lots"] textarea').fill('["x", "y"]')
    for (const [i, input] of (await page.locator('[data-name="few"] input').all()).entries()) await input.fill(String(i))
    assert.deepEqual(await bodyText(page), { lots: ['x', 'y'], few: [0, 1, 2] })
  })

  it('shows a <script> in p, m or s as text and never runs it', async () => {
    const { page, problems } = await open('/evil')
    assert.equal(await page.evaluate('typeof window.pwned'), 'undefined')
    assert.equal(await page.locator('.prompt').textContent(), EVIL)
    assert.equal(await page.locator('.message .role').textContent(), EVIL)
    assert.equal(await page.locator('.message .content').textContent(), EVIL)
    assert.equal(await page.locator('.help').first().textContent(), `A short title. ${EVIL}`)
    assert.equal(await page.locator('img').count(), 0)
    assert.equal(await page.locator('script').count(), 1)
    assert.deepEqual(await problems(), [], 'not even blocked: it was never markup')
  })

  it('fills a nested form and acts: act receives exactly the composed body, and the page shows the result', async () => {
    const { page, problems } = await open('/')
    await page.getByLabel('title', { exact: true }).fill('Plan')
    await page.getByLabel('count', { exact: true }).fill('3')
    await page.getByLabel('urgent', { exact: true }).check()
    await page.getByLabel('green').check()

    const tasks = page.locator('.field[data-name="tasks"]')
    const task = (i: number) => tasks.locator('.items > .item').nth(i)
    const add = tasks.getByRole('button', { name: 'Add item to tasks' })
    await task(0).getByLabel('what').fill('a')
    await task(0).getByLabel('done').check()
    await add.click()
    await task(1).getByLabel('what').fill('b')
    await add.click()
    await task(2).getByLabel('what').fill('c')
    assert.equal(await add.isDisabled(), true, 'maxItems 3')
    await tasks.getByRole('button', { name: 'Remove item 2' }).click()
    assert.equal(await add.isDisabled(), false)
    assert.equal(await tasks.locator('.items > .item').count(), 2)
    assert.equal(await task(1).locator('legend .index').textContent(), '2', 'renumbered')

    await page.getByLabel('kind of contact').selectOption({ label: 'object (phone)' })
    await page.getByLabel('phone').fill('555')

    // tree: n1 -> n2 -> n3, each level its own inputs
    const tree = page.locator('.field[data-name="tree"]')
    await page.getByLabel('kind of tree').selectOption({ label: 'branch1' })
    const kids = tree.locator('fieldset[data-kind="array"]').first()
    await kids.locator(':scope > .add').click()
    await kids.locator(':scope > .items > .item').nth(0).getByRole('textbox', { name: 'item', exact: true }).fill('x')
    await kids.locator(':scope > .add').click()
    const second = kids.locator(':scope > .items > .item').nth(1)
    await second.getByLabel('kind of item').selectOption({ label: 'branch2' })
    await second.locator('fieldset[data-kind="array"]').locator(':scope > .add').click()
    await second.getByLabel('item 1', { exact: true }).fill('y')

    const expected = {
      title: 'Plan',
      count: 3,
      urgent: true,
      color: 'green',
      kind: 'plan',
      tasks: [{ what: 'a', done: true }, { what: 'c', done: false }],
      contact: { phone: '555' },
      tree: { kids: ['x', { kids: ['y'] }] }
    }
    assert.deepEqual(await bodyText(page), expected)
    const before = seen.length
    await act(page)
    assert.equal(seen.length, before + 1)
    assert.deepEqual(seen.at(-1), expected)
    assert.match(await outcome(page).locator('p').textContent() ?? '', /^Done \(200\)/)
    assert.deepEqual(JSON.parse(await outcome(page).locator('pre').textContent() ?? ''), { received: expected })
    assert.deepEqual(await problems(), [])
  })

  it('leaves an optional member out until it is filled in, and again when it is unticked', async () => {
    const { page } = await open('/')
    const summary = page.getByLabel('summary', { exact: true })
    assert.equal(Object.hasOwn(await bodyText(page) as object, 'summary'), false)
    await summary.fill('')
    await summary.pressSequentially('why')
    assert.equal((await bodyText(page) as { summary?: string }).summary, 'why')
    assert.equal(await page.getByLabel('include summary').isChecked(), true)
    await page.getByLabel('include summary').uncheck()
    assert.equal(Object.hasOwn(await bodyText(page) as object, 'summary'), false)
  })

  it('says what the form still needs before sending, sends nothing until then, and focuses the first', async () => {
    const { page, problems } = await open('/')
    const before = seen.length
    await act(page)
    assert.equal(await outcome(page).locator('p').textContent(), 'Nothing was sent: the form would refuse this body. Still needed:')
    assert.deepEqual(await outcome(page).locator('li').allTextContents(), ['title: fill it in', 'count: fill in a whole number', 'color: choose one'])
    assert.equal(await page.evaluate('document.activeElement.id'), await page.getByLabel('title', { exact: true }).getAttribute('id'))

    await page.getByLabel('title', { exact: true }).fill('Plan')
    await page.getByLabel('count', { exact: true }).fill('11') // maximum is 10
    await page.getByLabel('red').check()
    const tasks = page.locator('.field[data-name="tasks"]')
    await tasks.getByRole('button', { name: 'Add item to tasks' }).click()
    await page.getByLabel('kind of contact').selectOption({ label: 'object (phone)' })
    assert.deepEqual(await page.locator('#body-note li').allTextContents(), ['count: at most 10'])
    await page.getByLabel('count', { exact: true }).fill('2.5')
    assert.deepEqual(await page.locator('#body-note li').allTextContents(), ['count: a whole number'])
    await page.getByLabel('count', { exact: true }).fill('10')
    await page.getByLabel('include summary').check() // an included optional member is checked too
    assert.deepEqual(await page.locator('#body-note li').allTextContents(), [])
    await act(page)
    assert.match(await outcome(page).textContent() ?? '', /^Done \(200\)/)
    const task = { what: '', done: false }
    const sent = { title: 'Plan', summary: '', count: 10, urgent: false, color: 'red', kind: 'plan', tasks: [task, task], contact: { phone: '' } }
    assert.deepEqual(seen.slice(before), [sent])
    assert.deepEqual(await problems(), [])
  })

  it('on the example poll, says a choice is needed instead of sending {} at once', async () => {
    const { page } = await open('/poll')
    assert.deepEqual(await page.locator('#body-note li').allTextContents(), ['choice: choose one'])
    await act(page)
    assert.deepEqual(await outcome(page).locator('li').allTextContents(), ['choice: choose one'])
    assert.deepEqual(votes, { tabs: 0, spaces: 0 })
    await page.getByLabel('spaces').check()
    await act(page)
    assert.deepEqual(JSON.parse(await outcome(page).locator('pre').textContent() ?? ''), { tabs: 0, spaces: 1 })
  })

  it('shows a rejected body as rejected (204)', async () => {
    const { page } = await open('/')
    await page.locator('#body').fill(JSON.stringify({ ...valid, count: 11 })) // maximum is 10: by hand, the address is the judge
    const before = seen.length
    await act(page)
    assert.match(await outcome(page).textContent() ?? '', /^Rejected \(204\)/)
    assert.equal(seen.length, before)
  })

  it('shows a 429 as rate limited', async () => {
    const { page } = await open('/limited') // request 1 of 2
    await page.getByLabel('note', { exact: true }).fill('hi')
    await act(page) // request 2
    assert.match(await outcome(page).textContent() ?? '', /^Done \(200\)/)
    await act(page) // request 3: over the limit
    assert.match(await outcome(page).textContent() ?? '', /^Rate limited \(429\): .* in \d+ s\./)
  })

  it('sends JSON written by hand in the raw editor, until an input changes', async () => {
    const { page } = await open('/')
    const body = page.locator('#body')
    await body.fill(JSON.stringify(valid))
    assert.match(await page.locator('#body-note').textContent() ?? '', /^Written by hand/)
    const before = seen.length
    await act(page)
    assert.deepEqual(seen.slice(before), [valid])
    assert.match(await outcome(page).textContent() ?? '', /^Done \(200\)/)

    await body.fill('{"title": ')
    await act(page)
    assert.match(await outcome(page).textContent() ?? '', /^Nothing was sent: the JSON body is not JSON/)
    assert.equal(seen.length, before + 1)

    await page.getByLabel('title', { exact: true }).fill('From inputs')
    assert.equal((await bodyText(page) as { title: string }).title, 'From inputs', 'inputs -> JSON on every change')
    assert.equal(await page.getByRole('button', { name: 'Write it from the inputs' }).isHidden(), true)
  })

  it('reads a JSON field, a type list, null, a tagged oneOf and a long enum, and stops at JSON that is not', async () => {
    const { page, problems } = await open('/odd')
    await page.getByLabel('map', { exact: true }).fill('{"a": 1}')
    await page.getByLabel('kind of maybe').selectOption({ label: 'null' })
    await page.getByLabel('kind of shape').selectOption({ label: 'kind: square' })
    await page.getByLabel('side').fill('2.5')
    await page.getByLabel('size', { exact: true }).selectOption({ label: '7' })
    const sku = page.getByLabel('sku', { exact: true })
    assert.equal(await sku.evaluate((el) => el.tagName + ' ' + el.getAttribute('type')), 'INPUT text', 'a pattern of one line')
    await sku.fill('abc-1234')
    assert.deepEqual(await page.locator('#body-note li').allTextContents(), ['sku: does not match the pattern ^[A-Z]{3}-\\d{4}$'])
    await sku.fill('ABC-1234')
    const email = page.getByLabel('email', { exact: true })
    assert.equal(await email.evaluate((el) => el.tagName + ' ' + el.getAttribute('inputmode')), 'INPUT email')
    await email.fill('a@bücher.de')
    assert.equal((await bodyText(page) as { email: string }).email, 'a@bücher.de', 'sent as typed')
    await page.getByLabel('include email').uncheck()
    const expected = { map: { a: 1 }, maybe: null, nothing: null, shape: { kind: 'square', side: 2.5 }, size: 7, sku: 'ABC-1234' }
    assert.deepEqual(await bodyText(page), expected)
    const before = seen.length
    await act(page)
    assert.deepEqual(seen.slice(before), [expected])

    await page.getByLabel('map', { exact: true }).fill('{oops')
    assert.equal(await page.locator('#body-note').textContent(), 'map: this is not JSON')
    await act(page)
    assert.match(await outcome(page).textContent() ?? '', /^Nothing was sent\. map: this is not JSON/)
    assert.equal(seen.length, before + 1)
    assert.deepEqual(await problems(), [])
  })

  it('offers a boolean that may be left out as one choice: left out, true or false', async () => {
    const { page, problems } = await open('/odd')
    const pinned = page.locator('.field[data-name="pinned"]')
    const has = async (): Promise<unknown> => (await bodyText(page) as { pinned?: boolean }).pinned
    assert.equal(await pinned.locator('input[type=checkbox]').count(), 0, 'no checkbox, so none to mistake for the other')
    assert.equal(await pinned.getByLabel('left out').isChecked(), true)
    assert.equal(await has(), undefined)
    await pinned.getByLabel('false').check()
    assert.equal(await has(), false)
    await pinned.getByLabel('true').check()
    assert.equal(await has(), true)
    assert.equal(await pinned.evaluate((el) => el.classList.contains('omitted')), false)
    await pinned.getByLabel('left out').check()
    assert.equal(await has(), undefined)
    assert.equal(await pinned.evaluate((el) => el.classList.contains('omitted')), true)
    assert.deepEqual(await problems(), [])
  })

  it('works from the keyboard: Enter does not send a half-filled form, Add moves focus into the new item', async () => {
    const { page } = await open('/')
    await page.getByLabel('title', { exact: true }).press('Enter')
    assert.equal(await outcome(page).textContent(), '')
    await page.getByRole('button', { name: 'Add item to tasks' }).focus()
    await page.keyboard.press('Enter')
    assert.equal(await page.evaluate('document.activeElement.labels[0].textContent'), 'what')
    await page.keyboard.press('Shift+Tab')
    assert.equal(await page.evaluate('document.activeElement.textContent'), 'Remove', 'item 1 can go now that there are two')
    await page.keyboard.press('Enter')
    assert.equal(await page.locator('.field[data-name="tasks"] .items > .item').count(), 1)
    assert.equal(await page.evaluate('document.activeElement.getAttribute("aria-label")'), 'Add item to tasks')
  })
})
