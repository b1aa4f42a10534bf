// Screenshots of the HTML page for docs/html-view.md, taken with Debian's Chromium:
//   node --import ./test/register.js scripts/screenshots.ts [out-dir]   (default docs/screenshots)
// Starts the example host's addresses (example/addresses.js) and an order form on 127.0.0.1 (any free port), fills in
// the forms as a person would, presses Act, and writes note-board-desktop.webp, note-board-phone.webp, poll-desktop.webp,
// poll-unsent-desktop.webp and order-desktop.webp; and poll-mcp-app.webp, the poll's view in a web MCP host
// (test/helpers/apps-host.ts: the official AppBridge, a sandbox proxy on another origin) acting through /mcp.
import { mkdir, writeFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import Fastify from 'fastify'
import { chromium, type Browser, type Page } from 'playwright-core'
import { noteBoard, poll } from '../example/addresses.js'
import gpt, { type GptOptions } from '../src/index.ts'
import mcp from '../src/mcp/index.ts'
import { showView, startWebHost } from '../test/helpers/apps-host.ts'

const out = resolve(process.argv[2] ?? fileURLToPath(new URL('../docs/screenshots/', import.meta.url)))
const executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium'
// The docs ship in the package, so each shot is small, about 20 KB: the page laid out for a desktop (two columns from
// 960 pixels) is drawn at three quarters, 720 pixels wide, about as GitHub shows it; each is cut below what the docs
// speak of; and it is WebP at 0.6, where text stays sharp.
const DESKTOP = { width: 960, scale: 0.75 }
const QUALITY = 0.6

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
await app.register(mcp)
const base = await app.listen({ host: '127.0.0.1', port: 0 })
const web = await startWebHost()
const client = new Client({ name: 'screenshots', version: '1.0.0' })
await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)))
const ACT = 'section[aria-labelledby="act-title"]'

let browser: Browser | undefined
try {
  await mkdir(out, { recursive: true })
  browser = await chromium.launch({
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync']
  })
  // Shoots the page from its top to the bottom of `until` (the Act section unless said), as WebP.
  const shoot = async (name: string, viewport: { width: number, height: number, scale?: number }, url: string, fill: (page: Page) => Promise<void>, until = ACT) => {
    const { width, height, scale = 1 } = viewport
    const context = await browser!.newContext({ viewport: { width, height }, deviceScaleFactor: scale, colorScheme: 'light' })
    const page = await context.newPage()
    await page.goto(url)
    await fill(page)
    await page.evaluate('window.scrollTo(0, 0)') // the JSON panel is sticky: keep it beside the inputs
    const box = await page.locator(until).boundingBox()
    if (box === null) throw new Error(`${name}: ${until} is not shown`)
    const png = await page.screenshot({ fullPage: true, clip: { x: 0, y: 0, width, height: Math.ceil(box.y + box.height) + 16 } })
    const path = resolve(out, name)
    await writeFile(path, await webp(png))
    await context.close()
    console.log(path)
  }
  // Chromium's own WebP encoder, on a canvas in a blank page (the address's page runs no script but its own).
  const encoder = await browser.newPage()
  const webp = async (png: Buffer): Promise<Buffer> => {
    const url = await encoder.evaluate(`(async () => {
      const image = new Image()
      image.src = 'data:image/png;base64,${png.toString('base64')}'
      await image.decode()
      const canvas = document.createElement('canvas')
      canvas.width = image.width
      canvas.height = image.height
      canvas.getContext('2d').drawImage(image, 0, 0)
      return canvas.toDataURL('image/webp', ${QUALITY})
    })()`) as string
    return Buffer.from(url.slice(url.indexOf(',') + 1), 'base64')
  }

  await shoot('note-board-desktop.webp', { ...DESKTOP, height: 900 }, base, async (page) => {
    await page.getByLabel('note', { exact: true }).fill('Lunch talk at noon in room 4: “Schemas as contracts”.')
    await page.getByLabel('author', { exact: true }).fill('Ada')
    await page.getByRole('button', { name: 'Act' }).click()
    await page.locator('.outcome.done').waitFor()
  })
  await shoot('note-board-phone.webp', { width: 390, height: 844 }, base, async (page) => {
    await page.getByLabel('note', { exact: true }).fill('Bikes go in the yard, please.')
  }, '#act .inputs > :first-child')
  await shoot('poll-desktop.webp', { ...DESKTOP, height: 720 }, `${base}/poll`, async (page) => {
    await page.getByLabel('spaces').check()
    await page.getByRole('button', { name: 'Act' }).click()
    await page.locator('.outcome.done').waitFor()
  })
  await shoot('poll-unsent-desktop.webp', { ...DESKTOP, height: 720 }, `${base}/poll`, async (page) => {
    await page.getByRole('button', { name: 'Act' }).click()
    await page.locator('.outcome.problem').waitFor()
  })
  await shoot('order-desktop.webp', { ...DESKTOP, height: 900 }, `${base}/order`, async (page) => {
    await page.getByLabel('sku', { exact: true }).fill('abc-123')
    await page.getByLabel('email', { exact: true }).fill('ada@example.com')
    await page.getByLabel('true').check()
  })
  await shoot('poll-mcp-app.webp', { width: 752, height: 900, scale: DESKTOP.scale }, web.origin, async (page) => {
    await page.exposeFunction('callTool', async (params: { name: string, arguments?: Record<string, unknown> }) => await client.callTool(params))
    const read = await client.readResource({ uri: 'ui://fastify-gpt/poll' })
    await showView(page, web, (read.contents[0] as { text: string }).text)
    const view = page.frameLocator('iframe').frameLocator('iframe')
    await view.getByLabel('tabs').check()
    await view.getByRole('button', { name: 'Act' }).click()
    await view.locator('.outcome.done').waitFor()
    await page.waitForTimeout(300) // the host sizes its frame to the view's answer
  }, 'iframe')
} finally {
  await browser?.close()
  await client.close()
  await web.close()
  await app.close()
}
