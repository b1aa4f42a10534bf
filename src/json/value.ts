// JSON values as the package holds them: frozen data read by every room (a form, a body, a finding).

/** A JSON object; a form is one (a JSON Schema draft 2020-12 object, published in `s`). */
export type JsonObject = { readonly [key: string]: Json }
export type Json = null | boolean | number | string | readonly Json[] | JsonObject

/** Whether `value` is a JSON object: not null, not an array. */
export const isObject = (value: unknown): value is JsonObject =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
