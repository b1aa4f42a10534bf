// A running job's page in a real browser (Debian's Chromium, as test/page/browser.test.ts runs it):
// its progress comes live over the job's SSE stream, its result too, and nothing in a progress
// message is ever markup. Without JavaScript it reloads itself instead.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import Fastify, { type FastifyInstance } from 'fastify'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import gpt, { type GptOptions } from '../../src/index.ts'
import { launchChromium, watchProblems } from '../helpers/chromium.ts'
import { eventually } from '../helpers/jobs.ts'

const HOSTILE = ['</script><script>window.pwned = 1</script>', '<img src=x onerror="window.pwned = 2">', '"><svg onload="window.pwned = 3">']

/** What the act of one job yields next, and what it returns: given by the test, one at a time. */
interface Channel {
  push (value: unknown): void
  end (result: unknown): void
  next (): Promise<{ done: boolean, value: unknown }>
}

function channel (): Channel {
  const queue: Array<{ done: boolean, value: unknown }> = []
  let waiting: ((item: { done: boolean, value: unknown }) => void) | undefined
  const put = (item: { done: boolean, value: unknown }): void => {
    if (waiting === undefined) queue.push(item)
    else {
      waiting(item)
      waiting = undefined
    }
  }
  return {
    push: (value) => { put({ done: false, value }) },
    end: (result) => { put({ done: true, value: result }) },
    next: async () => queue.shift() ?? await new Promise((resolve) => { waiting = resolve })
  }
}

let app: FastifyInstance
let base: string
let browser: Browser
const channels: Channel[] = []
const contexts: BrowserContext[] = []

before(async () => {
  app = Fastify()
  await app.register(gpt, {
    prefix: '/slow',
    prompt: 'Works as long as the test says.',
    form: { type: 'object', additionalProperties: false },
    rateLimit: false,
    background: { after: 60_000, poll: 1000, heartbeat: 50 },
    async * act () {
      const own = channel()
      channels.push(own)
      for (let item = await own.next(); ; item = await own.next()) {
        if (item.done) return item.value
        yield item.value
      }
    }
  } as unknown as GptOptions)
  base = await app.listen({ host: '127.0.0.1', port: 0 })
  browser = await launchChromium()
})

after(async () => {
  for (const context of contexts) await context.close()
  await browser?.close()
  await app?.close()
})

/** A new job, working, and the channel that drives its act. */
async function startJob (): Promise<{ href: string, act: Channel }> {
  const before = channels.length
  const response = await fetch(`${base}/slow`, { method: 'POST', headers: { 'content-type': 'application/json', prefer: 'respond-async' }, body: '{}' })
  const { href } = await response.json() as { href: string }
  assert.equal(channels.length, before + 1)
  return { href, act: channels[before]! }
}

/** Opens a job's page, recording console errors, page errors and CSP violations. */
async function open (href: string, javaScriptEnabled = true): Promise<{ page: Page, problems: () => Promise<string[]> }> {
  const context = await browser.newContext({ javaScriptEnabled })
  contexts.push(context)
  const page = await context.newPage()
  const problems = await watchProblems(page, javaScriptEnabled)
  await page.goto(base + href)
  if (javaScriptEnabled) await page.locator('#progress[data-state="working"]').waitFor() // its stream is open
  return { page, problems }
}

/** Waits until the job's arrival has a message: the page built now shows it. */
const shows = (href: string, content: string): Promise<void> => eventually(async () => {
  const { m } = await (await fetch(base + href)).json() as { m: Array<{ content: string }> }
  return m.some((message) => message.content === content)
}, `the job shows ${content}`)

const messages = (page: Page) => page.locator('.messages .message .content')

describe('a running job\'s page in a browser', () => {
  it('shows each progress message as it comes and the result once done, in the one page it loaded', async () => {
    const { href, act } = await startJob()
    act.push({ step: 1, message: 'first step' })
    // The page is built from the job as it stands; what the act yields later comes by the stream.
    await shows(href, 'first step')
    const { page, problems } = await open(href)
    assert.deepEqual(await messages(page).allTextContents(), ['first step'])
    await page.evaluate('window.same = true') // gone if the page reloads
    act.push('second step')
    await messages(page).nth(1).waitFor()
    act.push({ step: 3, message: 'third step' })
    await messages(page).nth(2).waitFor()
    act.end({ answer: 42 })
    await page.locator('#progress[data-state="completed"]').waitFor()
    assert.deepEqual(await messages(page).allTextContents(), ['first step', 'second step', 'third step', 'Completed. The result: {"answer":42}'])
    assert.match(await page.locator('#progress').textContent() ?? '', /has completed/)
    await page.locator('.prompt', { hasText: 'has completed' }).waitFor() // its p as it now reads
    assert.equal(await page.evaluate('window.same'), true, 'never reloaded')
    assert.deepEqual(await problems(), [])
    // What it shows live is what the job's page shows once reloaded.
    await page.reload()
    assert.deepEqual(await messages(page).allTextContents(), ['first step', 'second step', 'third step', 'Completed. The result: {"answer":42}'])
    assert.equal(await page.locator('#progress').count(), 0, 'a finished job\'s page follows nothing')
    assert.equal(await page.locator('script').count(), 1)
  })

  it('shows hostile progress messages, before and after it loaded, as text and never runs them', async () => {
    const { href, act } = await startJob()
    act.push(HOSTILE[0])
    await shows(href, HOSTILE[0]!)
    const { page, problems } = await open(href)
    act.push({ message: HOSTILE[1] })
    act.push(HOSTILE[2])
    act.end(HOSTILE.join(''))
    await page.locator('#progress[data-state="completed"]').waitFor()
    assert.deepEqual(await messages(page).allTextContents(), [...HOSTILE, `Completed. The result: ${JSON.stringify(HOSTILE.join(''))}`])
    assert.equal(await page.evaluate('typeof window.pwned'), 'undefined')
    assert.equal(await page.locator('img, svg').count(), 0)
    assert.equal(await page.locator('script').count(), 2, 'the page\'s own two')
    assert.deepEqual(await problems(), [], 'not even blocked: it was never markup')
  })

  it('a cancel from the page\'s own form ends the stream too', async () => {
    const { href, act } = await startJob()
    const { page, problems } = await open(href)
    act.push('working on it')
    await messages(page).first().waitFor()
    await page.getByRole('button', { name: 'Act', exact: true }).click() // the form admits exactly {"do":"cancel"}
    await page.locator('#progress[data-state="cancelled"]').waitFor()
    assert.match(await page.locator('#outcome').textContent() ?? '', /"cancelled"/)
    assert.deepEqual(await messages(page).allTextContents(), ['working on it', 'Cancelled.'])
    assert.deepEqual(await problems(), [])
  })

  it('without JavaScript: reloads itself every poll, so its progress still shows', async () => {
    const { href, act } = await startJob()
    const { page } = await open(href, false)
    assert.equal(await messages(page).count(), 0)
    act.push('seen after a reload')
    await messages(page).first().waitFor({ timeout: 30_000 }) // the point is that it comes; the bound is generous
    assert.equal(await messages(page).first().textContent(), 'seen after a reload')
    act.end(null)
  })
})
