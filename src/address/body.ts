import type { FromSchema, JSONSchema } from 'json-schema-to-ts'

/**
 * The value `act` receives: inferred from a `const` form; `unknown` for a form typed loosely, and
 * for a form whose `$ref`s json-schema-to-ts cannot follow to an end (draft §4.2 recursion, an
 * `$anchor`, a nested `$id`). There, FromSchema would stop the host's build (TS2615), so an act
 * names the type it expects instead: `act: (tree: Tree) => ...`.
 */
export type Body<F> = object extends F
  ? unknown
  : F extends JSONSchema ? (Untypable<F> extends true ? unknown : FromSchema<F>) : unknown

// The keywords whose values are schemas, as one schema, a list of them, or a map of names to them.
type One = 'additionalProperties' | 'propertyNames' | 'items' | 'contains' | 'not' | 'if' | 'then' | 'else' |
  'unevaluatedItems' | 'unevaluatedProperties' | 'additionalItems'
type List = 'allOf' | 'anyOf' | 'oneOf' | 'prefixItems' | 'items'
type Named = 'properties' | 'patternProperties' | '$defs' | 'definitions' | 'dependentSchemas'

/** Marks a `$ref` FromSchema cannot resolve as a plain JSON Pointer from the root. */
interface Opaque { readonly opaque: true }
/** Marks an `$id` below the root: `$ref`s inside it are relative to it, not to the root. */
interface Scoped { readonly scoped: true }

/** Every `$ref` of schema S, which sits at pointer At, as [where it is, what it names]. */
type Refs<S, At extends string> = S extends object
  ? (S extends { readonly $ref: infer R } ? (R extends `#/${string}` | '#' ? (R extends `${string}${'~' | '%'}${string}` ? Opaque : [At, R]) : Opaque) : never) |
    (S extends { readonly $id: unknown } ? (At extends '#' ? never : Scoped) : never) |
    { [K in keyof S & One]: S[K] extends readonly unknown[] ? never : Refs<S[K], `${At}/${K}`> }[keyof S & One] |
    { [K in keyof S & List]: S[K] extends readonly unknown[] ? Each<S[K], `${At}/${K}`> : never }[keyof S & List] |
    { [K in keyof S & Named]: Each<S[K], `${At}/${K}`> }[keyof S & Named]
  : never

type Each<M, At extends string> = { [K in keyof M & (M extends readonly unknown[] ? `${number}` : string)]: Refs<M[K], `${At}/${K}`> }[
  keyof M & (M extends readonly unknown[] ? `${number}` : string)]

/** The targets named by the `$ref`s inside the schema at pointer T (T itself included). */
type Next<R, T extends string> = R extends [infer At, infer Target] ? (At extends T | `${T}/${string}` ? Target : never) : never

/** Every target reachable from From by following `$ref`s; each round adds at least one, so it ends. */
type Reach<R, From extends string, Seen extends string = never> = [Exclude<From, Seen>] extends [never]
  ? Seen
  : Reach<R, Next<R, Exclude<From, Seen>> & string, Seen | From>

/** Whether following `$ref`s from some target comes back to it: an expansion without end. */
type Loops<R, T> = T extends string ? (T extends Reach<R, Next<R, T> & string> ? true : never) : never

type Untypable<F> = Refs<F, '#'> extends infer R
  ? Opaque extends R ? true
    : Scoped extends R ? ([Exclude<R, Scoped>] extends [never] ? false : true)
      : Loops<R, R extends [string, infer T] ? T : never> extends never ? false : true
  : never
