// Defaults that more than one room applies: the address enforces them, lint judges a form against
// them, the parser uses them when called alone. One definition, so the three cannot drift apart.

/** Largest act body in bytes, the address's `bodyLimit` (64 KiB). */
export const DEFAULT_BODY_LIMIT = 65536

/** Containers (objects and arrays) that may be nested in a body; `[[1]]` has depth 2. */
export const DEFAULT_MAX_DEPTH = 64

/** The longest delay setTimeout keeps, in ms; a longer one fires after 1 ms instead. */
export const MAX_DELAY = 2 ** 31 - 1
