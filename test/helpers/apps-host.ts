// A web MCP host on 127.0.0.1, for the MCP Apps tests and the docs' screenshot: its page runs the
// official host bridge (test/helpers/apps-host.browser.js, bundled) and shows a view through a
// sandbox proxy on another origin (localhost), under the extension's default CSP (MCP Apps,
// "Sandbox proxy", "Host Behavior").
import { createServer } from 'node:http'
import { build } from 'esbuild'
import type { Page } from 'playwright-core'

/** MCP Apps, "Host Behavior": the CSP a host MUST use for a view that declares none. */
export const DEFAULT_CSP = "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; connect-src 'none'"

/**
 * The sandbox proxy: it tells the host it is ready, loads the view the host sends into a frame of
 * its own (whose srcdoc document keeps the proxy's CSP), and passes every other message between
 * the two.
 */
const sandbox = (host: string): string => `<!doctype html>
<html><head><style>body { margin: 0 } iframe { border: 0; width: 100%; height: 100vh; display: block }</style></head><body><script>
let view
window.addEventListener('message', (event) => {
  if (event.source === window.parent) {
    if (event.data && event.data.method === 'ui/notifications/sandbox-resource-ready') {
      view = document.createElement('iframe')
      view.setAttribute('sandbox', 'allow-scripts allow-forms')
      view.title = 'view'
      view.srcdoc = event.data.params.html
      document.body.append(view)
    } else if (view) view.contentWindow.postMessage(event.data, '*')
  } else if (view && event.source === view.contentWindow) window.parent.postMessage(event.data, ${JSON.stringify(host)})
})
window.parent.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/sandbox-proxy-ready', params: {} }, ${JSON.stringify(host)})
</script></body></html>`

const PAGE = `<!doctype html><html><head><title>An MCP host</title><script type="module" src="/host.js"></script>
<style>body { margin: 16px; background: #f4f4f2; font: 14px/1.4 system-ui, sans-serif; color: #1c1c1e }
iframe { display: block; width: 720px; border: 1px solid #d3d3cd; border-radius: 10px; background: #fff }
p { margin: 0 0 10px; color: #5c5f66 }</style></head>
<body><p>poll · a tool of fastify-gpt, shown by the MCP host</p></body></html>`

export interface WebHost {
  /** Where the host's page is, and the origin of its sandbox proxy (another). */
  readonly origin: string
  readonly sandbox: string
  close (): Promise<void>
}

export async function startWebHost (): Promise<WebHost> {
  const bundled = await build({ entryPoints: [new URL('apps-host.browser.js', import.meta.url).pathname], bundle: true, format: 'esm', platform: 'browser', write: false, logLevel: 'silent' })
  const script = bundled.outputFiles[0]!.text
  let origin = ''
  const server = createServer((request, response) => {
    if (request.url === '/sandbox.html') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': DEFAULT_CSP })
      return response.end(sandbox(origin))
    }
    if (request.url === '/host.js') {
      response.writeHead(200, { 'content-type': 'text/javascript' })
      return response.end(script)
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    response.end(PAGE)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  origin = `http://127.0.0.1:${port}`
  return {
    origin,
    sandbox: `http://localhost:${port}`, // another origin, as the extension requires
    close: () => new Promise((resolve) => server.close(() => resolve()))
  }
}

/** Shows the view `html` on `page` (the host's, loaded), resolved once the view is initialized. */
export async function showView (page: Page, host: WebHost, html: string): Promise<void> {
  await page.waitForFunction(() => 'showView' in window)
  await page.evaluate(([html, at]) => (window as unknown as { showView: (h: string, s: string) => Promise<void> }).showView(html, at), [html, `${host.sandbox}/sandbox.html`] as const)
}
