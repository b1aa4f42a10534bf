// The page under @fastify/helmet, in a real browser: Debian's Chromium (apt-get install chromium;
// or set CHROMIUM to another build), driven by playwright-core, against a real host on 127.0.0.1.
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import helmet from '@fastify/helmet'
import Fastify, { type FastifyInstance } from 'fastify'
import { chromium, type Browser, type Page } from 'playwright-core'
import gpt, { type GptOptions } from '../../src/index.ts'
import { arrivalNeedsNothingAndNeverVaries, everyRejectionTheSameBare204, noteForm } from '../helpers/beside.ts'
import { registrationError } from '../helpers/host.ts'

const executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium'

// A page of the host's own: an inline script that marks it live and acts, an inline style.
const custom = (path: string): string => `<!doctype html><html><head><meta charset="utf-8"><title>notes</title>
<style>body { color: rebeccapurple }</style></head><body><p id="out">waiting</p>
<script>
document.documentElement.classList.add('live')
fetch(${JSON.stringify(path)}, { method: 'POST', body: JSON.stringify({ note: 'from the page' }) })
  .then((response) => response.text()).then((text) => { document.getElementById('out').textContent = text })
</script></body></html>`

let app: FastifyInstance
let base: string
let browser: Browser
const seen: unknown[] = []

before(async () => {
  if (!existsSync(executablePath)) {
    throw new Error(`no Chromium at ${executablePath}: apt-get install chromium (or set CHROMIUM to a Chromium build)`)
  }
  app = Fastify()
  await app.register(helmet) // its defaults: script-src 'self', which blocks any inline script
  const act = (body: unknown) => { seen.push(body); return { ok: true } }
  await app.register(gpt, { form: noteForm, act, rateLimit: false })
  await app.register(gpt, { prefix: '/custom', form: noteForm, act, rateLimit: false, html: (view) => custom(view.path) })
  await app.register(gpt, {
    prefix: '/headed',
    form: noteForm,
    act,
    rateLimit: false,
    html: (view) => ({ body: custom(view.path), headers: { 'cache-control': 'no-store', 'content-security-policy': "default-src 'none'" } })
  })
  base = await app.listen({ host: '127.0.0.1', port: 0 })
  browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] })
})

after(async () => {
  await browser?.close()
  await app?.close()
})

/** Opens a page, recording CSP violations and page errors. */
async function open (path: string): Promise<{ page: Page, violations: () => Promise<string[]> }> {
  const page = await browser.newPage()
  const errors: string[] = []
  page.on('pageerror', (error) => errors.push(error.message))
  await page.addInitScript(`window.violations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.violations.push(e.violatedDirective))`)
  await page.goto(base + path)
  return { page, violations: async () => [...errors, ...(await page.evaluate('window.violations') as string[])] }
}

describe('the HTML page under @fastify/helmet', () => {
  it('the default page: its own policy replaces helmet\'s, its script runs, and it acts', async () => {
    const html = await app.inject({ url: '/', headers: { accept: 'text/html' } })
    assert.match(String(html.headers['content-security-policy']), /^default-src 'none'; script-src 'sha256-/)
    assert.equal(html.headers['x-content-type-options'], 'nosniff')
    assert.equal(html.headers['x-frame-options'], 'SAMEORIGIN', 'helmet\'s other headers stay')
    const { page, violations } = await open('/')
    await page.locator('html.live').waitFor()
    await page.getByLabel('note', { exact: true }).fill('hi')
    await page.getByRole('button', { name: 'Act', exact: true }).click()
    await page.locator('#outcome:not(.busy):not(:empty)').waitFor()
    assert.deepEqual(seen.at(-1), { note: 'hi' })
    assert.deepEqual(await violations(), [])
    await page.close()
  })

  it('a custom page gets a policy of its own admitting its inline script and style, and nosniff', async () => {
    const html = await app.inject({ url: '/custom', headers: { accept: 'text/html' } })
    assert.equal(html.headers['x-content-type-options'], 'nosniff')
    const policy = String(html.headers['content-security-policy'])
    assert.match(policy, /^default-src 'none'; script-src 'self' 'sha256-[^']+'; style-src 'self' 'sha256-[^']+'/)
    assert.ok(!policy.includes('unsafe-inline'))
    const { page, violations } = await open('/custom')
    await page.locator('html.live').waitFor()
    await page.locator('#out', { hasText: '{"ok":true}' }).waitFor()
    assert.equal(await page.evaluate('getComputedStyle(document.body).color'), 'rgb(102, 51, 153)', 'the inline style applies')
    assert.deepEqual(seen.at(-1), { note: 'from the page' })
    assert.deepEqual(await violations(), [])
    await page.close()
  })

  it('a custom page that returns headers sends them in place of the defaults', async () => {
    const html = await app.inject({ url: '/headed', headers: { accept: 'text/html' } })
    assert.equal(html.headers['cache-control'], 'no-store')
    assert.equal(html.headers['content-security-policy'], "default-src 'none'")
    assert.equal(html.headers['x-content-type-options'], 'nosniff')
    const { page, violations } = await open('/headed')
    await page.waitForFunction('window.violations.length > 0')
    assert.ok((await violations()).some((directive) => directive.startsWith('script-src')), 'its own policy, which blocks the script')
    assert.equal(await page.evaluate('document.documentElement.classList.contains("live")'), false)
    await page.close()
  })

  it('keeps the draft\'s invariants under helmet: GET needs no header and never varies; every rejection the same bare 204', async () => {
    for (const path of ['/', '/custom']) {
      await arrivalNeedsNothingAndNeverVaries(app, path, [{ method: 'POST', url: path, payload: '{"note":"a"}' }, { method: 'GET', url: path, headers: { accept: 'text/html' } }])
      await arrivalNeedsNothingAndNeverVaries(app, path, [{ method: 'POST', url: path, payload: '{"note":1}' }], { headers: { accept: 'text/html' } })
      await everyRejectionTheSameBare204(app, path, [{ payload: '{"note":""}' }, { payload: '{"note":"a","note":"b"}' }, { payload: '\u00ff' }])
    }
  })
})

describe('a custom page\'s headers, checked at registration', () => {
  const refused: [string, GptOptions['html']][] = [
    ['a number', (() => 1) as unknown as GptOptions['html']],
    ['an object without body', (() => ({ headers: {} })) as unknown as GptOptions['html']],
    ['a header name that is not a token', () => ({ body: '', headers: { 'bad name': 'x' } })],
    ['a header value with a line break', () => ({ body: '', headers: { 'x-a': 'a\r\nset-cookie: b' } })],
    ['an ETag of its own', () => ({ body: '', headers: { etag: '"x"' } })],
    ['a Vary of its own', () => ({ body: '', headers: { Vary: 'Cookie' } })]
  ]
  for (const [name, html] of refused) {
    it(`refuses ${name} with GPT_ERR_OPTION_INVALID`, async () => {
      const error = await registrationError({ form: {}, html }, '/x') as Error & { code?: string }
      assert.equal(error?.code, 'GPT_ERR_OPTION_INVALID')
      assert.match(error.message, /^fastify-gpt address \/x: "html" returned /)
    })
  }
})
