// Screenshots of the HTML page for docs/html-view.md, taken with Debian's Chromium:
//   node --import ./test/register.js scripts/screenshots.ts [out-dir]   (default docs/screenshots)
// Starts the example host's addresses (example/addresses.js) and an order form on 127.0.0.1 (any free port), fills in
// the forms as a person would, presses Act, and writes note-board-desktop.png, note-board-phone.png, poll-desktop.png,
// poll-unsent-desktop.png and order-desktop.png.
import { mkdir } from 'node:fs/promises'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import Fastify from 'fastify'
import { chromium, type Browser, type Page } from 'playwright-core'
import { noteBoard, poll } from '../example/addresses.js'
import gpt, { type GptOptions } from '../src/index.ts'

const out = resolve(process.argv[2] ?? fileURLToPath(new URL('../docs/screenshots/', import.meta.url)))
const executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium'

const app = Fastify()
await app.register(gpt, { ...noteBoard({ notes: [{ note: 'The coffee machine on floor 2 works again.', author: 'Sam' }] }), rateLimit: false } as unknown as GptOptions)
await app.register(gpt, { ...poll({ tabs: 4, spaces: 7 }), rateLimit: false })
// Inputs the example host has none of: one-line strings (a pattern, formats) and a boolean that may be left out.
await app.register(gpt, {
  prefix: '/order',
  prompt: 'Order a free sample.',
  form: {
    type: 'object',
    properties: {
      sku: { type: 'string', pattern: '^[A-Z]{3}-\\d{4}$', description: 'Three capitals, a dash, four digits.' },
      email: { type: 'string', format: 'email' },
      deliver: { type: 'string', format: 'date', description: 'Leave it out for the first free day.' },
      gift: { type: 'boolean', description: 'Wrap it as a gift.' },
      note: { type: 'string', maxLength: 500 }
    },
    required: ['sku', 'email'],
    additionalProperties: false
  },
  act: (order) => ({ ordered: order }),
  rateLimit: false
})
const base = await app.listen({ host: '127.0.0.1', port: 0 })

let browser: Browser | undefined
try {
  await mkdir(out, { recursive: true })
  browser = await chromium.launch({
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync']
  })
  const shoot = async (name: string, width: number, height: number, url: string, fill: (page: Page) => Promise<void>) => {
    const context = await browser!.newContext({ viewport: { width, height }, deviceScaleFactor: width < 600 ? 2 : 1, colorScheme: 'light' })
    const page = await context.newPage()
    await page.goto(url)
    await fill(page)
    await page.evaluate('window.scrollTo(0, 0)') // the JSON panel is sticky: keep it beside the inputs
    const path = resolve(out, name)
    await page.screenshot({ path, fullPage: true })
    await context.close()
    console.log(path)
  }

  await shoot('note-board-desktop.png', 1280, 900, base, async (page) => {
    await page.getByLabel('note', { exact: true }).fill('Lunch talk at noon in room 4: “Schemas as contracts”.')
    await page.getByLabel('author', { exact: true }).fill('Ada')
    await page.getByRole('button', { name: 'Act' }).click()
    await page.locator('.outcome.done').waitFor()
  })
  await shoot('note-board-phone.png', 390, 844, base, async (page) => {
    await page.getByLabel('note', { exact: true }).fill('Bikes go in the yard, please.')
  })
  await shoot('poll-desktop.png', 1280, 720, `${base}/poll`, async (page) => {
    await page.getByLabel('spaces').check()
    await page.getByRole('button', { name: 'Act' }).click()
    await page.locator('.outcome.done').waitFor()
  })
  await shoot('poll-unsent-desktop.png', 1280, 720, `${base}/poll`, async (page) => {
    await page.getByRole('button', { name: 'Act' }).click()
    await page.locator('.outcome.problem').waitFor()
  })
  await shoot('order-desktop.png', 1280, 900, `${base}/order`, async (page) => {
    await page.getByLabel('sku', { exact: true }).fill('abc-123')
    await page.getByLabel('email', { exact: true }).fill('ada@example.com')
    await page.getByLabel('true').check()
  })
} finally {
  await browser?.close()
  await app.close()
}
