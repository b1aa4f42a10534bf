import { Validator, type OutputUnit, type Schema } from '@cfworker/json-schema'
import { META_SCHEMAS } from './meta-schema.ts'

// The checker's own verdicts, from @cfworker/json-schema: an implementation independent of the
// Ajv that fastify-gpt enforces forms with, so that a fault of either shows as a disagreement.

const META_ID = 'https://json-schema.org/draft/2020-12/schema'

/**
 * The validator has no $dynamicRef; in the meta-schemas every `{"$dynamicRef": "#meta"}` lands on
 * the 2020-12 meta-schema itself (no vocabulary extends it here), so a plain $ref is the same check.
 */
function staticRefs (value: unknown): unknown {
  if (Array.isArray(value)) return value.map(staticRefs)
  if (value === null || typeof value !== 'object') return value
  const object = value as Record<string, unknown>
  if (object['$dynamicRef'] === '#meta') return { $ref: META_ID }
  return Object.fromEntries(Object.entries(object).map(([key, member]) => [key, staticRefs(member)]))
}

let meta: Validator | undefined

/** Whether `form` is a valid JSON Schema 2020-12 (draft §4); why not, in a sentence, if not. */
export function formProblem (form: unknown): string | undefined {
  if (meta === undefined) {
    const [top, ...vocabularies] = META_SCHEMAS.map((text) => staticRefs(JSON.parse(text)) as Schema)
    meta = new Validator(top as Schema, '2020-12', false)
    for (const vocabulary of vocabularies) meta.addSchema(vocabulary)
  }
  const { valid, errors } = meta.validate(form)
  if (valid) return undefined
  const leaf = errors[errors.length - 1] as OutputUnit
  return `${leaf.instanceLocation}: ${leaf.error}`
}

export interface Verdict {
  readonly valid: boolean
  /** The keywords that failed, wrappers (properties, items, $ref...) left out. */
  readonly keywords: ReadonlySet<string>
}

// Keywords whose failure only says that one of their subschemas failed.
const WRAPPERS = new Set(['properties', 'patternProperties', 'items', 'prefixItems', 'allOf', '$ref', 'false',
  'dependentSchemas', 'if', 'then', 'else', 'contains', 'unevaluatedProperties', 'unevaluatedItems', 'propertyNames'])

/** A judge of values for one form: `admits(value)` says whether s admits it, and what refused it. */
export function judge (form: object): (value: unknown) => Verdict {
  const validator = new Validator(form as Schema, '2020-12', false)
  return (value) => {
    const { valid, errors } = validator.validate(value)
    return { valid, keywords: new Set(errors.map((e) => e.keyword).filter((k) => !WRAPPERS.has(k))) }
  }
}
