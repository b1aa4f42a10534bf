// The protocol revisions the bridge speaks, and what each has that an older one has not (each
// revision's schema.ts and changelog): every answer holds only the shapes of the revision its
// request speaks, so a client of an older one never meets a member it cannot read.

/** The revisions `initialize` negotiates, newest first (MCP "Lifecycle"): those with a handshake. */
export const PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']

/**
 * The revisions a request names for itself, in its `_meta` and MCP-Protocol-Version, with no
 * handshake (2026-07-28, "Versioning": the modern ones): what `server/discover` offers.
 */
export const MODERN_VERSIONS = ['2026-07-28']

/** Every revision spoken, newest first: what an UnsupportedProtocolVersionError lists. */
export const SPOKEN = [...MODERN_VERSIONS, ...PROTOCOL_VERSIONS]

/** What one revision has. */
export interface Shapes {
  readonly revision: string
  /** A tool's `annotations` (2025-03-26), whose `title` is the tool's title until `Tool.title`. */
  readonly annotations: boolean
  /** A tool's `title` (2025-06-18). */
  readonly title: boolean
  /** `_meta` on a tool and on a resource's contents (2025-06-18). */
  readonly meta: boolean
  /** A tool's `outputSchema`, a result's `structuredContent`, `resource_link` content (2025-06-18). */
  readonly structured: boolean
  /** A tool's `icons` (2025-11-25). */
  readonly icons: boolean
  /** JSON-RPC batches: 2025-03-26 only (its servers MUST accept them; 2025-06-18 removed them). */
  readonly batches: boolean
  /**
   * No handshake and no session (2026-07-28): each request names its revision, client and
   * capabilities in its `_meta` and its method and name in header fields; each result says its
   * `resultType`, and a list's or a read's how long it stays fresh (src/mcp/envelope.ts).
   */
  readonly perRequest: boolean
  /** `structuredContent` any JSON value, and `outputSchema` any schema, not only an object's (2026-07-28). */
  readonly structuredAny: boolean
  /**
   * Tasks: 2025-11-25's own (experimental: a task-augmented tools/call, tasks/get, result,
   * cancel), or 2026-07-28's `io.modelcontextprotocol/tasks` extension (a call answered by a task
   * where the client declares it; tasks/get, update, cancel). Older revisions have none.
   */
  readonly tasks: 'core' | 'extension' | undefined
}

const SHAPES: ReadonlyMap<string, Shapes> = new Map(([
  { revision: '2026-07-28', annotations: true, title: true, meta: true, structured: true, icons: true, batches: false, perRequest: true, structuredAny: true, tasks: 'extension' },
  { revision: '2025-11-25', annotations: true, title: true, meta: true, structured: true, icons: true, batches: false, perRequest: false, structuredAny: false, tasks: 'core' },
  { revision: '2025-06-18', annotations: true, title: true, meta: true, structured: true, icons: false, batches: false, perRequest: false, structuredAny: false, tasks: undefined },
  { revision: '2025-03-26', annotations: true, title: false, meta: false, structured: false, icons: false, batches: true, perRequest: false, structuredAny: false, tasks: undefined },
  { revision: '2024-11-05', annotations: false, title: false, meta: false, structured: false, icons: false, batches: false, perRequest: false, structuredAny: false, tasks: undefined }
] satisfies Shapes[]).map((row) => [row.revision, Object.freeze(row)]))

/**
 * Streamable HTTP (2025-06-18, "Protocol Version Header"): a request that names no revision, from
 * a client whose session says none, is taken as 2025-03-26.
 */
export const ASSUMED = '2025-03-26'

/** What `revision` has; one not spoken here (never asked: the bridge refuses it first) as the assumed one. */
export const shapesOf = (revision: string | undefined): Shapes => SHAPES.get(revision ?? ASSUMED) ?? SHAPES.get(ASSUMED) as Shapes
