import type { ErrorObject } from 'ajv/dist/2020.js'
import type { GeneratedContext as Context, GeneratedFunction as Compiled } from './ajv.ts'

/**
 * Validation in polynomial time, whatever the form (draft §7.4).
 *
 * A form is a tree, so without `$ref` each of its subschemas meets each node of a body at most once.
 * A `$ref` turns the tree into a graph: `anyOf` alternatives that refer to the same definition, or a
 * recursive definition tried by several alternatives, evaluate the same subschema on the same node
 * along exponentially many paths (a 639-byte body of nested lists is 2^22 evaluations). Compiled with
 * `inlineRefs: false`, every `$ref` is a call to the compiled function of its target; each such
 * function is wrapped here so that, within one validation, it runs at most once per body node and
 * otherwise answers from memory. Work is then at most (compiled functions) × (body nodes) calls,
 * each doing the polynomial work of one subschema on one node.
 *
 * A memorised answer restores what a call leaves behind for its caller: the verdict, its errors
 * (at most ERRORS_PER_CALL, and at least one for a failure: the caller only counts them) and the
 * properties and items it evaluated (for `unevaluatedProperties`). Each is handed out as a fresh copy,
 * since the generated code may truncate or extend the arrays and objects it is given.
 */

interface Outcome {
  readonly valid: boolean
  readonly errors: ErrorObject[] | null
  readonly props: unknown
  readonly items: unknown
}

/** How many errors one call passes to its caller: enough for `explain`, never a flood. */
export const ERRORS_PER_CALL = 8

/** Calls made through the wrappers, and those that ran their schema: read by the tests' bounds. */
export const work = { calls: 0, evaluations: 0 }

// Marks a call under way: meeting it again means a subschema evaluates itself on the same node
// without consuming anything (registration refuses such forms; this is the fail-closed backstop).
const UNDER_WAY: Outcome = Object.freeze({ valid: false, errors: null, props: undefined, items: undefined })

// The memory of the validation under way, made on its first `$ref` call and dropped when it ends.
// Validation is synchronous and calls no user code, so one slot serves the whole process.
let memory: Map<unknown, Map<Compiled, Outcome>> | undefined

/** Wraps one compiled function: a call from the generated code with a body node and its context. */
export function bounded (inner: Compiled): Compiled {
  const outer: Compiled = function validate (data, context) {
    if (context === undefined) {
      // The whole body: a fresh memory for this validation, the previous one restored after it.
      const saved = memory
      memory = undefined
      try {
        return inner(data)
      } finally {
        memory = saved
      }
    }
    memory ??= new Map()
    work.calls++
    // A body is a tree, so an object or array is its own node; a scalar's verdict depends on its
    // value alone, and its place keeps the errors' paths right.
    const key = typeof data === 'object' && data !== null ? data : `${typeof data}:${String(data)}@${context.instancePath}`
    let outcomes = memory.get(key)
    if (outcomes === undefined) memory.set(key, outcomes = new Map())
    const known = outcomes.get(outer)
    if (known !== undefined) return restore(outer, known === UNDER_WAY ? cycle(context) : known)
    outcomes.set(outer, UNDER_WAY)
    work.evaluations++
    const valid = inner(data, context)
    const errors = valid ? null : (outer.errors ?? []).slice(0, ERRORS_PER_CALL)
    const outcome = { valid, errors, props: copy(outer.evaluated?.props), items: outer.evaluated?.items }
    outcomes.set(outer, outcome)
    return restore(outer, outcome)
  }
  return outer
}

function restore (outer: Compiled, { valid, errors, props, items }: Outcome): boolean {
  outer.errors = errors === null ? null : errors.slice()
  if (outer.evaluated !== undefined) {
    outer.evaluated.props = copy(props)
    outer.evaluated.items = items
  }
  return valid
}

const copy = (props: unknown): unknown => (typeof props === 'object' && props !== null ? { ...props } : props)

function cycle ({ instancePath }: Context): Outcome {
  const error: ErrorObject = {
    instancePath,
    schemaPath: '#',
    keyword: '$ref',
    params: {},
    message: 'a $ref cycle met this value again without consuming it'
  }
  return { valid: false, errors: [error], props: undefined, items: undefined }
}

export { wrapSource } from './ajv.ts'
