// The applicators of JSON Schema draft 2020-12 (its applicator and unevaluated vocabularies, and
// the `$defs` of core): the keywords whose values are subschemas. Every walk over a form (the
// validator's audit and cycle search, lint, unroll, the checker) takes its keywords from here.

/** How an applicator holds its subschemas: one, a list of them, or a map from names to them. */
export type Shape = 'one' | 'list' | 'map'
/**
 * What its subschemas apply to: a part of the value (a member, an item, a member name), the value
 * itself (in place), or nothing until a `$ref` leads there (a definition).
 */
export type Target = 'part' | 'in-place' | 'definition'

/** Every applicator, in the order the walks visit them. `definitions` is draft 7's `$defs`. */
export const APPLICATORS: ReadonlyMap<string, { readonly shape: Shape, readonly target: Target }> = new Map([
  ['items', { shape: 'one', target: 'part' }],
  ['additionalProperties', { shape: 'one', target: 'part' }],
  ['contains', { shape: 'one', target: 'part' }],
  ['propertyNames', { shape: 'one', target: 'part' }],
  ['unevaluatedItems', { shape: 'one', target: 'part' }],
  ['unevaluatedProperties', { shape: 'one', target: 'part' }],
  ['not', { shape: 'one', target: 'in-place' }],
  ['if', { shape: 'one', target: 'in-place' }],
  ['then', { shape: 'one', target: 'in-place' }],
  ['else', { shape: 'one', target: 'in-place' }],
  ['prefixItems', { shape: 'list', target: 'part' }],
  ['allOf', { shape: 'list', target: 'in-place' }],
  ['anyOf', { shape: 'list', target: 'in-place' }],
  ['oneOf', { shape: 'list', target: 'in-place' }],
  ['properties', { shape: 'map', target: 'part' }],
  ['patternProperties', { shape: 'map', target: 'part' }],
  ['dependentSchemas', { shape: 'map', target: 'in-place' }],
  ['$defs', { shape: 'map', target: 'definition' }],
  ['definitions', { shape: 'map', target: 'definition' }]
] as const)

/** The applicators of `shape` whose subschemas apply to one of `targets` (all of them if none is named), in table order. */
export function applicators (shape: Shape, ...targets: Target[]): string[] {
  return [...APPLICATORS].filter(([, kind]) => kind.shape === shape && (targets.length === 0 || targets.includes(kind.target))).map(([key]) => key)
}
