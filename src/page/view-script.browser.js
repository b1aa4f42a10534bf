// The door of an address's view in an MCP host (MCP Apps, 2026-01-26): the view speaks JSON-RPC
// with the host over postMessage ("Transport Layer"), greets it (ui/initialize, then
// ui/notifications/initialized), tells it the view's size (ui/notifications/size-changed), and
// acts through it: the page's Act hands the body to `act`, which asks the host to call the
// address's tool (tools/call), never the address itself (the host's CSP allows no connection).
// The host's own word on a call of the tool (ui/notifications/tool-input, tool-result) is shown as
// the page's Act shows its answers. Runs before the page's script, which takes `gptDoor`.
'use strict'
;(() => {
  const form = document.getElementById('act')
  const body = document.getElementById('body')
  const tool = form.dataset.tool
  const wrapped = form.hasAttribute('data-wrapped')
  const waiting = new Map()
  let next = 0
  const send = (message) => window.parent.postMessage(Object.assign({ jsonrpc: '2.0' }, message), '*')
  const ask = (method, params) => new Promise((resolve, reject) => {
    const id = ++next
    waiting.set(id, { resolve, reject })
    send({ id, method, params })
  })

  const text = (result) => (result.content || []).filter((block) => block.type === 'text').map((block) => block.text).join('\n')
  const pretty = (value) => JSON.stringify(value, null, 2)
  // A call's result as the page shows an answer: the act's result, or the refusal the tool said.
  const shown = (result) => {
    if (result.isError) return ['rejected', 'Not done. The tool answered:', text(result)]
    const value = 'structuredContent' in result ? result.structuredContent : text(result)
    return ['done', 'Done. The address answered:', typeof value === 'string' ? value : pretty(value)]
  }

  const door = {
    show () {}, // the page's script puts its own here
    async act (json) {
      const value = JSON.parse(json)
      const args = wrapped ? { value } : value
      if (args === null || typeof args !== 'object' || Array.isArray(args)) return ['problem', 'Nothing was sent: this tool takes a JSON object.']
      try {
        await ready
        return shown(await ask('tools/call', { name: tool, arguments: args }))
      } catch (error) {
        return ['problem', 'The host did not call the tool: ' + error.message]
      }
    }
  }
  window.gptDoor = door

  const NOTIFIED = {
    'ui/notifications/tool-input' (params) {
      const args = params && params.arguments
      if (!args) return
      // As if typed: the body now is what was sent, not what the inputs make.
      body.value = pretty(wrapped ? args.value : args)
      body.dispatchEvent(new Event('input', { bubbles: true }))
    },
    'ui/notifications/tool-result' (params) { if (params) door.show(...shown(params)) },
    'ui/notifications/tool-cancelled' (params) { door.show('problem', 'The call was cancelled' + (params && params.reason ? ': ' + params.reason : '.')) }
  }

  window.addEventListener('message', (event) => {
    const message = event.data
    if (event.source !== window.parent || !message || message.jsonrpc !== '2.0') return
    if (message.method === undefined) {
      const call = waiting.get(message.id)
      if (!call) return
      waiting.delete(message.id)
      if (message.error) call.reject(new Error(message.error.message))
      else call.resolve(message.result)
    } else if (message.id === undefined) {
      if (Object.hasOwn(NOTIFIED, message.method)) NOTIFIED[message.method](message.params)
    } else if (message.method === 'ping' || message.method === 'ui/resource-teardown') {
      send({ id: message.id, result: {} })
    } else {
      send({ id: message.id, error: { code: -32601, message: 'Method not found: ' + String(message.method).slice(0, 100) } })
    }
  })

  const ready = ask('ui/initialize', {
    protocolVersion: '2026-01-26',
    appInfo: { name: 'fastify-gpt view', version: '1' },
    appCapabilities: { availableDisplayModes: ['inline'] }
  }).then(() => send({ method: 'ui/notifications/initialized', params: {} }))

  // The host sizes the frame to the view: tell it whenever the page's size changes.
  let told = ''
  new ResizeObserver(() => {
    const root = document.documentElement
    const size = { width: Math.ceil(root.scrollWidth), height: Math.ceil(root.scrollHeight) }
    if (told === size.width + 'x' + size.height) return
    told = size.width + 'x' + size.height
    ready.then(() => send({ method: 'ui/notifications/size-changed', params: size }), () => {}) // no host to tell: Act says so
  }).observe(document.documentElement)
})()
