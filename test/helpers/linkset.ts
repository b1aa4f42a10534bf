// A linkset in JSON (RFC 9264 §4.2, application/linkset+json) as a JSON Schema, written from the
// RFC's text, each rule beside the sentence it comes from, and checked by @cfworker/json-schema, a
// validator independent of the Ajv the addresses run on. Stricter in one place: §4.2.5 allows
// other members NOT RECOMMENDED, which nothing of ours should send.
import { Validator } from '@cfworker/json-schema'

/** §4.2.4.2: "an array that contains one or more JSON objects", with "value" and optionally "language". */
const internationalized = {
  type: 'array',
  minItems: 1,
  items: {
    type: 'object',
    properties: { value: { type: 'string' }, language: { type: 'string' } },
    required: ['value'],
    additionalProperties: false
  }
}

export const LINKSET_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  // §4.2.1: "an object which MUST contain "linkset" as its sole member", whose value is an array of
  // link context objects ("Even if there is only one ... MUST be wrapped in an array").
  type: 'object',
  properties: { linkset: { type: 'array', items: { $ref: '#/$defs/context' } } },
  required: ['linkset'],
  additionalProperties: false,
  $defs: {
    context: {
      // §4.2.2: "MAY contain an "anchor" member ... MUST be a URI reference"; then, for each
      // relation type, a member named by the registered name (RFC 8288 §2.1.1: lower-case) or by
      // the URI of an extension type, whose value is an array of link target objects ("Even if
      // there is only one link target object it MUST be wrapped in an array").
      type: 'object',
      properties: { anchor: { type: 'string', format: 'uri-reference' } },
      propertyNames: { anyOf: [{ const: 'anchor' }, { pattern: '^[a-z][a-z0-9.-]*$' }, { format: 'uri' }] },
      additionalProperties: { type: 'array', items: { $ref: '#/$defs/target' } }
    },
    target: {
      // §4.2.3: "MUST contain an "href" member ... MUST be a URI reference"; §4.2.4.1: hreflang an
      // array of strings "even if there only is one value", media, type and title strings, title*
      // as §4.2.4.2; §4.2.4.3: an extension attribute an array of strings, of objects (§4.2.4.2)
      // when its name ends in *.
      type: 'object',
      properties: {
        href: { type: 'string', format: 'uri-reference' },
        hreflang: { type: 'array', items: { type: 'string' } },
        media: { type: 'string' },
        type: { type: 'string' },
        title: { type: 'string' },
        'title*': internationalized
      },
      patternProperties: { '\\*$': internationalized },
      required: ['href'],
      additionalProperties: { type: 'array', items: { type: 'string' } }
    }
  }
} as const

const validator = new Validator(LINKSET_SCHEMA as object, '2020-12')

/** What RFC 9264 §4.2 finds wrong with `value` as a linkset: the failing pointers, none if valid. */
export function linksetErrors (value: unknown): string[] {
  const { valid, errors } = validator.validate(value)
  return valid ? [] : errors.map((error) => `${error.instanceLocation}: ${error.error}`)
}
