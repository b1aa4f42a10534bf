// The page script of test/helpers/apps-host.ts, bundled for the browser: the official host
// bridge (AppBridge of @modelcontextprotocol/ext-apps) shows a view in a sandbox proxy on another
// origin (MCP Apps, "Sandbox proxy") and hands the view's tools/call to `window.callTool`, which
// the test forwards to the real /mcp of a running host.
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge'

/** Shows `html` through the sandbox proxy at `sandbox`; resolves once the view is initialized. */
window.showView = async (html, sandbox) => {
  const frame = document.createElement('iframe')
  frame.title = 'MCP App'
  frame.setAttribute('sandbox', 'allow-scripts allow-same-origin allow-forms')
  document.body.append(frame)
  const bridge = new AppBridge(null, { name: 'apps test host', version: '1.0.0' }, { serverTools: {} },
    { hostContext: { theme: 'light', displayMode: 'inline', platform: 'web', containerDimensions: { width: 720, maxHeight: 2000 } } })
  window.bridge = bridge
  bridge.oncalltool = (params) => window.callTool(params)
  bridge.onsizechange = ({ height }) => {
    window.sizes.push(height)
    if (height !== undefined) frame.style.height = `${height}px`
  }
  bridge.onsandboxready = () => bridge.sendSandboxResourceReady({ html })
  const initialized = new Promise((resolve) => { bridge.oninitialized = resolve })
  // The frame's window is the same object once it navigates: the transport listens before it loads.
  await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow))
  frame.src = sandbox
  await initialized
}
window.sizes = []
