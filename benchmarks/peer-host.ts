// One stack of `npm run bench:peers` in its own process, serving the note board and the to-do
// list (benchmarks/peer-forms.ts) the way its own documentation shows:
//   gpt    fastify-gpt (the built package, dist/): an address at /note and one at /todo,
//          `rateLimit: false, lint: false`
//   bare   Fastify as a user writes it by hand, in a process that never loads fastify-gpt: GET
//          sends the note board's arrival as precomputed bytes, POST has `schema: { body: form }`
//          with Fastify's default JSON parser and Ajv
//   bare-kept  the same, keeping one process.nextTick object alive as the fastify-gpt stacks do
//          (keepTickObject): without it a bare host may pay V8's megamorphic tick on every request
//          (docs/benchmarks.md, "A process-wide cost"), which flatters fastify-gpt
//   hono   @hono/zod-openapi on @hono/node-server: the forms as strict zod objects, one
//          `createRoute` each; GET /doc is the OpenAPI document (`app.doc`)
//   gpt-mcp  the gpt host with fastify-gpt/mcp (the built package, dist/mcp/) registered after
//          its addresses, `rateLimit: false` as the addresses have it: the same forms as tools
//          `note` and `todo` at POST /mcp, stateless, each answer one JSON-RPC response in JSON
//   gpt-result  the gpt host with each address's `result` declared (noteResult, todoResult): every
//          result judged, and written by the compiled serializer (src/address/serialize.ts)
//   gpt-fotel  the gpt host with @fastify/otel registered first (a request span per request and
//          a span per hook) to the OpenTelemetry SDK, spans batched to an exporter that drops them
//   gpt-otel   the same, and fastify-gpt/otel (docs/observability.md): the request span's gpt.*
//          attributes, an act span, and the metrics, read every minute by a reader that drops them
//   mcp    the MCP TypeScript SDK over Streamable HTTP, stateless as its docs show
//          (simpleStatelessStreamableHttp: a new McpServer and transport per request on
//          createMcpExpressApp); tools `note` and `todo` with strict zod inputs at POST /mcp
//   mcp-v2 the MCP TypeScript SDK v2 (@modelcontextprotocol/server) on its official Fastify
//          adapter (@modelcontextprotocol/fastify's createMcpFastifyApp), stateless as the
//          adapter's README shows: a new McpServer and NodeStreamableHTTPServerTransport
//          (@modelcontextprotocol/node) per request; the same tools as mcp
// Arguments: --stack NAME, --module PATH (gpt and gpt-mcp only: another build's index.js, to
// measure a change; gpt-mcp takes the bridge from mcp/index.js beside it).
// Reports { port, pid } once listening; answers `close` over IPC, and `profile-start` and
// `profile-stop` (V8's CPU profiler around the measured runs only, written where asked: only
// `bench:peers -- --profile DIR` sends them).
import { writeFileSync } from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { Session } from 'node:inspector/promises'
import { serve } from './processes.ts'
import { BODY_LIMIT, intro, noteArrival, noteForm, notePrompt, noteReceipt, noteResult, todoForm, todoPrompt, todoReceipt, todoResult } from './peer-forms.ts'
import { parseArgs } from 'node:util'
import { pathToFileURL } from 'node:url'
import { dirname, resolve as absolute } from 'node:path'

const { values } = parseArgs({ options: { stack: { type: 'string', default: 'gpt' }, module: { type: 'string' } } })

type Note = { note: string, author?: string | undefined }
type Todo = { title: string, items: unknown[] }
interface Listening { port: number, close: () => Promise<void> }

async function gpt (): Promise<Listening> {
  const { default: Fastify } = await import('fastify')
  const module = await import(values.module === undefined ? 'fastify-gpt' : pathToFileURL(absolute(values.module)).href)
  // The V8 remedy docs/benchmarks.md advises a Node 20 host to opt into (a build from before it
  // was an export kept it when it loaded).
  module.keepTickObject?.()
  const plugin = module.default
  const app = Fastify({ logger: false })
  if (values.stack === 'gpt-otel' || values.stack === 'gpt-fotel') await telemetry(app, values.stack === 'gpt-otel')
  const common = { rateLimit: false, lint: false, bodyLimit: BODY_LIMIT }
  const results = values.stack === 'gpt-result'
  app.register(plugin, { ...common, prefix: '/note', prompt: notePrompt, messages: intro, form: noteForm, act: (body: Note) => noteReceipt(body), ...(results ? { result: noteResult } : {}) })
  app.register(plugin, { ...common, prefix: '/todo', prompt: todoPrompt, form: todoForm, act: (body: Todo) => todoReceipt(body), ...(results ? { result: todoResult } : {}) })
  if (values.stack === 'gpt-mcp') {
    // docs/mcp.md: registered after the addresses; the bridge's own limit off, as the addresses'
    const { mcp } = await import(values.module === undefined ? 'fastify-gpt/mcp' : pathToFileURL(absolute(dirname(values.module), 'mcp/index.js')).href)
    app.register(mcp, { rateLimit: false })
  }
  await app.listen({ host: '127.0.0.1', port: 0 })
  return { port: (app.server.address() as { port: number }).port, close: () => app.close() }
}

/** OpenTelemetry as a production host runs it, exporting nowhere: what is measured is the instrumentation. */
async function telemetry (app: import('fastify').FastifyInstance, ours: boolean): Promise<void> {
  const { context, metrics, trace } = await import('@opentelemetry/api')
  const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks')
  const { BasicTracerProvider, BatchSpanProcessor } = await import('@opentelemetry/sdk-trace-base')
  const { MeterProvider, PeriodicExportingMetricReader } = await import('@opentelemetry/sdk-metrics')
  const { FastifyOtelInstrumentation } = await import('@fastify/otel')
  const dropped = { export: (_items: unknown, done: (result: { code: 0 }) => void) => { done({ code: 0 }) }, shutdown: async () => {}, forceFlush: async () => {} }
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(dropped)] }))
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [new PeriodicExportingMetricReader({ exporter: dropped, exportIntervalMillis: 60_000 })] }))
  const instrumentation = new FastifyOtelInstrumentation({ registerOnInitialization: false })
  await app.register(instrumentation.plugin())
  if (!ours) return
  const otel = (await import(values.module === undefined ? 'fastify-gpt/otel' : pathToFileURL(absolute(dirname(values.module), 'otel/index.js')).href)).default
  await app.register(otel)
}

async function bare (): Promise<Listening> {
  if (values.stack === 'bare-kept') (await import('../src/address/tick.ts')).keepTickObject()
  const { default: Fastify } = await import('fastify')
  const app = Fastify({ logger: false })
  app.get('/note', (_request, reply) => reply.header('content-type', 'application/json; charset=utf-8').send(noteArrival))
  app.post('/note', { schema: { body: noteForm }, bodyLimit: BODY_LIMIT }, (request) => noteReceipt(request.body as Note))
  app.post('/todo', { schema: { body: todoForm }, bodyLimit: BODY_LIMIT }, (request) => todoReceipt(request.body as Todo))
  await app.listen({ host: '127.0.0.1', port: 0 })
  return { port: (app.server.address() as { port: number }).port, close: () => app.close() }
}

async function hono (): Promise<Listening> {
  const { OpenAPIHono, createRoute, z } = await import('@hono/zod-openapi')
  const { serve: listen } = await import('@hono/node-server')
  const { noteSchema, todoSchema } = zodForms(z as unknown as Zod)
  const app = new OpenAPIHono()
  const route = (path: string, schema: typeof noteSchema | typeof todoSchema) => createRoute({
    method: 'post',
    path,
    request: { body: { content: { 'application/json': { schema } }, required: true } },
    responses: { 200: { description: 'done', content: { 'application/json': { schema: z.object({}).passthrough() } } } }
  })
  app.openapi(route('/note', noteSchema), (c) => c.json(noteReceipt(c.req.valid('json') as Note) as Record<string, unknown>, 200))
  app.openapi(route('/todo', todoSchema), (c) => c.json(todoReceipt(c.req.valid('json') as Todo) as Record<string, unknown>, 200))
  app.doc('/doc', { openapi: '3.0.0', info: { title: 'peers', version: '1.0.0' } })
  return await new Promise((resolve) => {
    const server = listen({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
      resolve({ port: info.port, close: () => new Promise((resolve) => { server.close(() => resolve()) }) })
    })
  })
}

async function mcp (): Promise<Listening> {
  const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js')
  const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js')
  const { createMcpExpressApp } = await import('@modelcontextprotocol/sdk/server/express.js')
  const forms = zodForms((await import('zod/v4')).z)
  const server = (): InstanceType<typeof McpServer> => withTools(new McpServer({ name: 'peers', version: '1.0.0' }), forms)
  const app = createMcpExpressApp()
  app.post('/mcp', async (req: IncomingMessage & { body: unknown }, res: ServerResponse & { status: (code: number) => { json: (value: unknown) => void } }) => {
    const mcpServer = server()
    try {
      // { sessionIdGenerator: undefined } in the docs: stateless, which leaving it out also means
      const transport = new StreamableHTTPServerTransport({})
      await mcpServer.connect(transport)
      await transport.handleRequest(req, res, req.body)
      res.on('close', () => {
        transport.close()
        mcpServer.close()
      })
    } catch {
      if (!res.headersSent) res.status(500).json({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: null })
    }
  })
  return await new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => {
      resolve({ port: (server.address() as { port: number }).port, close: () => new Promise((resolve) => { server.close(() => resolve()) }) })
    })
  })
}

async function mcpV2 (): Promise<Listening> {
  const { McpServer } = await import('@modelcontextprotocol/server')
  const { createMcpFastifyApp } = await import('@modelcontextprotocol/fastify')
  const { NodeStreamableHTTPServerTransport } = await import('@modelcontextprotocol/node')
  const forms = zodForms((await import('zod/v4')).z)
  const app = createMcpFastifyApp({ host: '127.0.0.1' })
  app.post('/mcp', async (request, reply) => {
    const mcpServer = withTools(new McpServer({ name: 'peers', version: '1.0.0' }), forms)
    const transport = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: undefined })
    await mcpServer.connect(transport)
    reply.raw.on('close', () => {
      transport.close()
      mcpServer.close()
    })
    await transport.handleRequest(request.raw, reply.raw, request.body)
  })
  await app.listen({ host: '127.0.0.1', port: 0 })
  return { port: (app.server.address() as { port: number }).port, close: () => app.close() }
}

/** What the SDKs' McpServer (v1 and v2 alike) is asked here: the tools, as each documents registerTool. */
interface ToolServer {
  registerTool: (name: string, config: { description: string, inputSchema: never }, handler: (body: never) => Promise<{ content: { type: 'text', text: string }[] }>) => unknown
}

/** `server` with the tools `note` and `todo`, each answering its act's receipt as text. */
function withTools<S> (server: S, { noteSchema, todoSchema }: ReturnType<typeof zodForms>): S {
  const text = (value: unknown): { content: { type: 'text', text: string }[] } => ({ content: [{ type: 'text', text: JSON.stringify(value) }] })
  const tools = server as unknown as ToolServer
  tools.registerTool('note', { description: notePrompt, inputSchema: noteSchema as never }, async (body: Note) => text(noteReceipt(body)))
  tools.registerTool('todo', { description: todoPrompt, inputSchema: todoSchema as never }, async (body: Todo) => text(todoReceipt(body)))
  return server
}

/** The two forms as zod schemas, strict as the JSON Schema forms are (additionalProperties: false). */
type Zod = typeof import('zod/v4').z
function zodForms (z: Zod) {
  const noteSchema = z.strictObject({ note: z.string().min(1).max(280), author: z.string().max(40).optional() })
  const todoSchema = z.strictObject({
    title: z.string().min(1).max(200),
    items: z.array(z.strictObject({
      id: z.number().int().min(0),
      text: z.string().min(1).max(200),
      done: z.boolean(),
      tags: z.array(z.string().max(20)).max(8).optional()
    })).max(2000)
  })
  return { noteSchema, todoSchema }
}

const stacks: Record<string, () => Promise<Listening>> = { gpt, 'gpt-result': gpt, 'gpt-mcp': gpt, 'gpt-otel': gpt, 'gpt-fotel': gpt, bare, 'bare-kept': bare, hono, mcp, 'mcp-v2': mcpV2 }
const start = stacks[values.stack]
if (start === undefined) throw new Error(`--stack must be one of ${Object.keys(stacks).join(', ')}, not ${values.stack}`)
const listening = await start()
let profiler: Session | undefined
serve(async (message) => {
  switch (message.type) {
    case 'profile-start':
      profiler = new Session()
      profiler.connect()
      await profiler.post('Profiler.enable')
      await profiler.post('Profiler.setSamplingInterval', { interval: 250 })
      await profiler.post('Profiler.start')
      return {}
    case 'profile-stop': {
      if (profiler === undefined) throw new Error('no profile was started')
      const { profile } = await profiler.post('Profiler.stop')
      profiler.disconnect()
      profiler = undefined
      writeFileSync(String(message.file), JSON.stringify(profile))
      return {}
    }
    case 'close':
      await listening.close()
      process.exit(0)
      break
    default:
      throw new Error(`unknown request ${String(message.type)}`)
  }
  return {}
})
process.send?.({ port: listening.port, pid: process.pid, stack: values.stack })
