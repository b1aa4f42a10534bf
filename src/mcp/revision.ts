// The protocol revisions the bridge speaks, and what each has that an older one has not (each
// revision's schema.ts and changelog): every answer holds only the shapes of the revision its
// request speaks, so a client of an older one never meets a member it cannot read.

/** The protocol revisions the bridge speaks, newest first (MCP "Lifecycle", version negotiation). */
export const PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']

/** What one revision has. */
export interface Shapes {
  readonly revision: string
  /** A tool's `annotations` (2025-03-26), whose `title` is the tool's title until `Tool.title`. */
  readonly annotations: boolean
  /** A tool's `title` (2025-06-18). */
  readonly title: boolean
  /** A tool's `outputSchema`, a result's `structuredContent`, `resource_link` content (2025-06-18). */
  readonly structured: boolean
  /** A tool's `icons` (2025-11-25). */
  readonly icons: boolean
  /** JSON-RPC batches: 2025-03-26 only (its servers MUST accept them; 2025-06-18 removed them). */
  readonly batches: boolean
}

const shapes = (revision: string, annotations: boolean, title: boolean, icons: boolean, batches: boolean): Shapes =>
  Object.freeze({ revision, annotations, title, structured: title, icons, batches })

const SHAPES: ReadonlyMap<string, Shapes> = new Map([
  ['2025-11-25', shapes('2025-11-25', true, true, true, false)],
  ['2025-06-18', shapes('2025-06-18', true, true, false, false)],
  ['2025-03-26', shapes('2025-03-26', true, false, false, true)],
  ['2024-11-05', shapes('2024-11-05', false, false, false, false)]
])

/**
 * Streamable HTTP (2025-06-18, "Protocol Version Header"): a request that names no revision, from
 * a client whose session says none, is taken as 2025-03-26.
 */
export const ASSUMED = '2025-03-26'

/** What `revision` has; one not spoken here (never asked: the bridge refuses it first) as the assumed one. */
export const shapesOf = (revision: string | undefined): Shapes => SHAPES.get(revision ?? ASSUMED) ?? SHAPES.get(ASSUMED) as Shapes
