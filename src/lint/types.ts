/** How much a finding matters: an error means some actor cannot act, or no actor can. */
export type Severity = 'error' | 'warning' | 'info'

/** The constrained decoders whose support for JSON Schema the lint knows (docs/forms.md). */
export const DECODERS = ['openai-strict', 'anthropic', 'gemini', 'llama-cpp', 'xgrammar', 'outlines', 'llguidance'] as const
export type DecoderName = typeof DECODERS[number]

/**
 * A value of each RFC 3339 format that holds a clock, written as the format wants it (seconds and
 * an offset): what lint's `time-strict` advises and what the page's input shows as its placeholder.
 */
export const TIME_EXAMPLES: ReadonlyMap<string, string> = new Map([['time', '14:30:00Z'], ['date-time', '2026-12-07T14:30:00Z']])

/** One thing a form author should know about a form. */
export interface Finding {
  /** A stable name: filter on it, never on the message. */
  readonly rule: string
  readonly severity: Severity
  /** JSON Pointer of the keyword (or the schema) concerned; '' is the whole form. */
  readonly pointer: string
  readonly message: string
  /** The draft section the rule comes from, such as '7.2', where one applies. */
  readonly section?: string
  /** The decoder profiles the finding concerns; empty when it concerns every actor. */
  readonly decoders: readonly DecoderName[]
}

export interface LintOptions {
  /** The decoders actors are expected to use. Default: every profile. */
  readonly decoders?: readonly DecoderName[]
  /** The address's `bodyLimit`. Default 65536. */
  readonly bodyLimit?: number
  /** The address's `maxDepth`; `Infinity` for none. Default 64. */
  readonly maxDepth?: number
  /**
   * The largest form lint reads: bytes of its compact JSON and nesting of its objects and arrays.
   * Past them lint throws GPT_ERR_FORM_TOO_LARGE or GPT_ERR_FORM_TOO_DEEP before reading further.
   * Default 1048576 bytes (four times the address's default) and 256 deep (the address's default).
   */
  readonly limits?: { readonly formBytes?: number, readonly formDepth?: number }
}

/**
 * What lint says of one decoder profile and this form (docs/forms.md): its runtime refuses the form,
 * loosens part of it (its actors may send bodies refused with a 204), or enforces all of it.
 */
export interface RuntimeVerdict {
  readonly decoder: string
  readonly runtimes: string
  readonly verdict: 'refused' | 'loosened' | 'exact'
}
