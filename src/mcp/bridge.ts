// The host's addresses as the bridge serves them: found when the host is ready, named once, each
// tool built once per edition, and the listening streams told when a tool changes.
import type { FastifyInstance } from 'fastify'
import type { Edition } from '../address/address.ts'
import { serverInfoMember } from './envelope.ts'
import { hostedOn, type Hosted } from './registry.ts'
import { PROTOCOL_VERSIONS, shapesOf } from './revision.ts'
import type { Listeners } from './stream.ts'
import { buildTool, checkNames, type Tool } from './tools.ts'
import { viewOf } from './view.ts'

/** One address as a tool. */
export interface Entry {
  readonly hosted: Hosted
  readonly path: string
  readonly name: string
}

export interface BridgeOptions {
  readonly where: string
  readonly serverInfo: { readonly name: string, readonly version: string }
  readonly instructions: string | undefined
  readonly toolName: (path: string) => string
  /** Which of the host's addresses are tools (the `addresses` option). */
  readonly serves: (path: string) => boolean
  readonly listeners: Listeners
  /** The host the bridge reaches each address through, by the address's own routes (src/mcp/enter.ts). */
  readonly host: FastifyInstance
}

/** How much room a call's envelope takes beside its arguments (method, id, name, _meta). */
export const ENVELOPE = 16 * 1024

export class Bridge {
  readonly serverInfo: BridgeOptions['serverInfo']
  /** `serverInfo` as the member of a 2026-07-28 result's `_meta`, written once. */
  readonly serverInfoMember: string
  readonly instructions: string | undefined
  #entries: readonly Entry[] = []
  #byName = new Map<string, Entry>()
  #byPath = new Map<string, Entry>()
  readonly #tools = new WeakMap<Edition, Tool>()
  readonly #views = new WeakMap<Edition, string>()
  /** When each tool (by path) last changed on this instance, or began to be served (ms since the epoch): src/mcp/cache.ts. */
  readonly #changed = new Map<string, number>()
  readonly #options: BridgeOptions
  /**
   * The largest body any address takes, and the deepest, with the envelope around them: what a
   * request to the bridge may be (one level deeper again for a wrapped form's `value`).
   */
  bodyLimit = ENVELOPE
  maxDepth = 4

  constructor (options: BridgeOptions) {
    this.#options = options
    this.serverInfo = options.serverInfo
    this.serverInfoMember = serverInfoMember(options.serverInfo)
    this.instructions = options.instructions
  }

  /** Takes the host's addresses, when it is ready: refuses names MCP does not allow, or two the same. */
  start (): void {
    const entries = hostedOn(this.host.server).filter((hosted) => this.#options.serves(hosted.settings.path))
      .map((hosted) => ({ hosted, path: hosted.settings.path, name: this.#options.toolName(hosted.settings.path) }))
    checkNames(entries, this.#options.where)
    this.#entries = entries
    this.#byName = new Map(entries.map((entry) => [entry.name, entry]))
    this.#byPath = new Map(entries.map((entry) => [entry.path, entry]))
    for (const { hosted } of entries) {
      this.bodyLimit = Math.max(this.bodyLimit, hosted.settings.bodyLimit + ENVELOPE)
      // the root and params above the arguments; a wrapped form's value is one deeper (index.ts)
      this.maxDepth = Math.max(this.maxDepth, hosted.settings.maxDepth + 2)
    }
    for (const entry of entries) this.#watch(entry)
  }

  get host (): FastifyInstance { return this.#options.host }
  get listeners (): Listeners { return this.#options.listeners }

  /** Since when `entry`'s tool (and so its arrival's entity tag) has been what it is now, on this instance. */
  changedAt (entry: Entry): number { return this.#changed.get(entry.path) as number }

  entries (): readonly Entry[] { return this.#entries }
  named (name: string): Entry | undefined { return this.#byName.get(name) }
  atPath (path: string): Entry | undefined { return this.#byPath.get(path) }

  /** The job `<address>/jobs/<id>` a path names, if its address has jobs. */
  jobAt (path: string): { readonly entry: Entry, readonly id: string } | undefined {
    const slash = path.lastIndexOf('/')
    const base = path.slice(0, slash)
    const id = path.slice(slash + 1)
    if (id === '') return undefined
    const entry = this.#entries.find((candidate) => candidate.hosted.background?.base === base)
    return entry === undefined ? undefined : { entry, id }
  }

  /** The tool of `entry`'s current edition (or of `edition`), built once per edition. */
  tool (entry: Entry, edition = entry.hosted.address.current): Tool {
    let tool = this.#tools.get(edition)
    if (tool === undefined) {
      tool = buildTool(edition, entry.name, entry.hosted)
      this.#tools.set(edition, tool)
    }
    return tool
  }

  /** The view of `entry`'s current edition (src/mcp/view.ts), rendered when first read, then kept with the edition. */
  view (entry: Entry): string {
    const edition = entry.hosted.address.current
    let view = this.#views.get(edition)
    if (view === undefined) {
      view = viewOf(edition, entry.name, entry.hosted, this.tool(entry, edition).wrapped)
      this.#views.set(edition, view)
    }
    return view
  }

  /** After each edition served (an update here, or one another instance stored): list_changed when the tool changed. */
  #watch (entry: Entry): void {
    // The newest handshake revision's JSON holds every member an edition changes (its entity tag too).
    const newest = shapesOf(PROTOCOL_VERSIONS[0])
    let listed = this.tool(entry).json(newest)
    this.#changed.set(entry.path, Date.now())
    entry.hosted.address.watch(() => {
      const json = this.tool(entry).json(newest)
      if (json === listed) return
      listed = json
      this.#changed.set(entry.path, Date.now())
      this.#options.listeners.notify('{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}')
    })
  }
}
