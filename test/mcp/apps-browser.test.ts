// The example poll's view in a real browser (Debian's Chromium, driven by playwright-core), shown
// by the official host bridge (AppBridge, @modelcontextprotocol/ext-apps) of a web host on one
// origin, through a sandbox proxy on another, under the extension's default CSP (MCP Apps,
// "Sandbox proxy", "Host Behavior"); the view's tools/call goes to the real /mcp of a running host.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { getToolUiResourceUri } from '@modelcontextprotocol/ext-apps/app-bridge'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { Browser, FrameLocator, Page } from 'playwright-core'
import { poll } from '../../example/addresses.js'
import gpt from '../../src/index.ts'
import { startWebHost, showView, type WebHost } from '../helpers/apps-host.ts'
import { launchChromium, watchProblems } from '../helpers/chromium.ts'
import { bridged, type Bridged } from './bridge-host.ts'

let mcp: Bridged
let client: Client
let web: WebHost
let browser: Browser
const votes = { tabs: 0, spaces: 0 }
/** Each act the poll ran, as its body: counted at the server. */
const acts: unknown[] = []
/** Each tools/call the host forwarded to /mcp. */
const calls: unknown[] = []

before(async () => {
  const options = poll(votes)
  mcp = await bridged(async (app) => {
    await app.register(gpt, { ...options, rateLimit: false, act: (body: { choice: 'tabs' | 'spaces' }) => { acts.push(body); return options.act(body) } })
  })
  client = await mcp.connect({ name: 'apps test host', version: '1.0.0' })
  web = await startWebHost()
  browser = await launchChromium()
})

after(async () => {
  await browser?.close()
  await web?.close()
  await mcp?.close()
})

/** Opens the host page and shows the poll's view as an MCP host would: its tool names it, resources/read gives it. */
async function showPoll (): Promise<{ page: Page, view: FrameLocator, problems: () => Promise<string[]> }> {
  const { tools } = await client.listTools()
  const tool = tools.find((listed) => listed.name === 'poll')!
  const uri = getToolUiResourceUri({ _meta: tool._meta })
  assert.equal(uri, 'ui://fastify-gpt/poll')
  const read = await client.readResource({ uri: uri! })
  const { text: html } = read.contents[0] as { text: string }
  const page = await (await browser.newContext()).newPage()
  const problems = await watchProblems(page)
  await page.exposeFunction('callTool', async (params: { name: string, arguments?: Record<string, unknown> }) => {
    calls.push(params)
    return await client.callTool(params)
  })
  await page.goto(web.origin)
  await showView(page, web, html)
  return { page, view: page.frameLocator('iframe').frameLocator('iframe'), problems }
}

/** The extension's own sandbox proxy needs allow-same-origin beside allow-scripts, which Chromium warns of. */
const PROXY_WARNING = 'console warning: An iframe which has both allow-scripts and allow-same-origin for its sandbox attribute can escape its sandboxing.'

/** What the page and the view complained of (console errors, CSP violations), less the proxy's warning. */
async function complaints (page: Page, problems: () => Promise<string[]>): Promise<string[]> {
  const frame = page.frames().find((candidate) => candidate.url() === 'about:srcdoc')
  assert.ok(frame !== undefined, 'the view\'s frame')
  const violations = await frame.evaluate('window.violations') as string[]
  return [...(await problems()).filter((problem) => problem !== PROXY_WARNING), ...violations.map((v) => `view CSP: ${v}`)]
}

describe('the poll\'s view in a web host, through AppBridge', () => {
  it('a person picks "tabs" and acts: one tools/call reaches the poll with {"choice":"tabs"}, the tally rises by one, and the view shows it', async () => {
    const { page, view, problems } = await showPoll()
    const before = votes.tabs
    await view.locator('html.live').waitFor() // the page's script ran to its end
    await view.getByRole('radio', { name: 'tabs' }).check()
    assert.deepEqual(JSON.parse(await view.getByLabel('JSON body').inputValue()), { choice: 'tabs' })
    await view.getByRole('button', { name: 'Act', exact: true }).click()
    const outcome = view.locator('#outcome.done')
    await outcome.waitFor()
    assert.deepEqual(calls, [{ name: 'poll', arguments: { choice: 'tabs' } }], 'the view acted through the host\'s tools/call')
    assert.deepEqual(acts, [{ choice: 'tabs' }], 'exactly one act reached the poll')
    assert.equal(votes.tabs, before + 1)
    assert.match(await outcome.innerText(), /Done\. The address answered:\s*\{\s*"tabs": 1,\s*"spaces": 0\s*\}/)
    const sizes = await page.evaluate(() => (window as unknown as { sizes: number[] }).sizes)
    assert.ok(sizes.length > 0 && sizes.every((height) => height > 100), `the view told its size: ${sizes.join(', ')}`)
    assert.deepEqual(await complaints(page, problems), [], 'no console error, no CSP violation: the view lives within the default CSP')
    await page.context().close()
  })

  it('shows a call the host made for the model: its arguments as the JSON body, its result as the outcome', async () => {
    const { page, view, problems } = await showPoll()
    await view.locator('html.live').waitFor()
    await page.evaluate(async () => {
      const { bridge } = window as unknown as { bridge: { sendToolInput: (p: object) => Promise<void>, sendToolResult: (p: object) => Promise<void> } }
      await bridge.sendToolInput({ arguments: { choice: 'spaces' } })
      await bridge.sendToolResult({ content: [{ type: 'text', text: '{"tabs":1,"spaces":7}' }], structuredContent: { tabs: 1, spaces: 7 } })
    })
    await view.locator('#outcome.done').waitFor()
    assert.match(await view.locator('#outcome').innerText(), /"spaces": 7/)
    assert.deepEqual(JSON.parse(await view.getByLabel('JSON body').inputValue()), { choice: 'spaces' })
    assert.equal(calls.length, 1, 'the view itself called nothing')
    assert.deepEqual(await complaints(page, problems), [])
    // The view is under the default CSP: it could not have reached the poll but through the host.
    const frame = page.frames().find((candidate) => candidate.url() === 'about:srcdoc')!
    const reached = await frame.evaluate(async (url) => await fetch(url, { method: 'POST', body: '{"choice":"tabs"}' }).then(() => 'reached', () => 'blocked'), `${mcp.origin}/poll`)
    assert.equal(reached, 'blocked')
    await page.context().close()
  })
})
