import createError from '@fastify/error'

// Every registration problem, and every refused update, is one of these: `app.ready()` (or the
// update) rejects with it, its code is stable, and its message names the address (its path) and
// what is wrong. Nothing here is ever sent to a client. Each has the base class fastify's own
// errors would: TypeError for a value of the wrong kind, RangeError for one too large.
type Named = [address: string, detail: string]

/** An option is missing, of the wrong type or out of range. */
export const GPT_ERR_OPTION_INVALID = createError<'GPT_ERR_OPTION_INVALID', Named>(
  'GPT_ERR_OPTION_INVALID', 'fastify-gpt address %s: %s', 500, TypeError)

/** An option name fastify-gpt does not know (most often a typo). */
export const GPT_ERR_OPTION_UNKNOWN = createError<'GPT_ERR_OPTION_UNKNOWN', Named>(
  'GPT_ERR_OPTION_UNKNOWN', 'fastify-gpt address %s: unknown option %s')

/** The form is not plain JSON data (a function, a cycle, a class instance, a non-finite number...). */
export const GPT_ERR_FORM_NOT_JSON = createError<'GPT_ERR_FORM_NOT_JSON', Named>(
  'GPT_ERR_FORM_NOT_JSON', 'fastify-gpt address %s: the form is not JSON: %s', 500, TypeError)

/** The form is not a valid JSON Schema (draft 2020-12). */
export const GPT_ERR_FORM_INVALID = createError<'GPT_ERR_FORM_INVALID', Named>(
  'GPT_ERR_FORM_INVALID', 'fastify-gpt address %s: the form is not a valid JSON Schema 2020-12: %s')

/** A keyword the validator does not implement; draft §5.2 (4) forbids ignoring it. */
export const GPT_ERR_FORM_UNKNOWN_KEYWORD = createError<'GPT_ERR_FORM_UNKNOWN_KEYWORD', Named>(
  'GPT_ERR_FORM_UNKNOWN_KEYWORD', 'fastify-gpt address %s: the form uses a keyword that would not be enforced: %s')

/** A `format` the validator cannot check. */
export const GPT_ERR_FORM_UNKNOWN_FORMAT = createError<'GPT_ERR_FORM_UNKNOWN_FORMAT', Named>(
  'GPT_ERR_FORM_UNKNOWN_FORMAT', 'fastify-gpt address %s: the form uses a format that would not be enforced: %s')

/** A `$ref` that does not resolve inside the form. */
export const GPT_ERR_FORM_UNRESOLVED_REF = createError<'GPT_ERR_FORM_UNRESOLVED_REF', Named>(
  'GPT_ERR_FORM_UNRESOLVED_REF', 'fastify-gpt address %s: the form has a $ref that does not resolve: %s')

/** A property name no body can carry, so the form would publish what is never accepted. */
export const GPT_ERR_FORM_PROPERTY_NAME = createError<'GPT_ERR_FORM_PROPERTY_NAME', Named>(
  'GPT_ERR_FORM_PROPERTY_NAME', 'fastify-gpt address %s: the form names a property that cannot be checked: %s')

/** A `$ref` cycle that comes back to a schema without descending into the value: it never ends. */
export const GPT_ERR_FORM_REF_CYCLE = createError<'GPT_ERR_FORM_REF_CYCLE', Named>(
  'GPT_ERR_FORM_REF_CYCLE', 'fastify-gpt address %s: the form has a $ref cycle that never ends: %s')

/** A keyword that, beside its partners, checks nothing (`then` without `if`): valid, but surely a mistake. */
export const GPT_ERR_FORM_NO_EFFECT = createError<'GPT_ERR_FORM_NO_EFFECT', Named>(
  'GPT_ERR_FORM_NO_EFFECT', 'fastify-gpt address %s: the form has a keyword that checks nothing as written: %s')

/** A `pattern` the linear-time matcher cannot run (a backreference, a lookaround) or that is not valid. */
export const GPT_ERR_FORM_PATTERN = createError<'GPT_ERR_FORM_PATTERN', Named>(
  'GPT_ERR_FORM_PATTERN', 'fastify-gpt address %s: the form has a pattern that cannot be enforced: %s')

/**
 * An edition shared through Redis could not be taken or stored (Redis away, or other instances
 * storing theirs first time after time): the address keeps serving the edition it had.
 */
export const GPT_ERR_EDITION_NOT_STORED = createError<'GPT_ERR_EDITION_NOT_STORED', Named>(
  'GPT_ERR_EDITION_NOT_STORED', 'fastify-gpt address %s: the edition was not stored in Redis: %s')

/** A form `unroll` cannot make finite as it stands (src/unroll/unroll.ts), or a bad `depth`. */
export const GPT_ERR_UNROLL = createError<'GPT_ERR_UNROLL', [detail: string]>(
  'GPT_ERR_UNROLL', 'fastify-gpt unroll: %s')

/** A decoder named in `lint: { require }` would refuse the form or loosen part of it (docs/forms.md). */
export const GPT_ERR_FORM_DECODER = createError<'GPT_ERR_FORM_DECODER', Named>(
  'GPT_ERR_FORM_DECODER', 'fastify-gpt address %s: a decoder the address requires would not act on the form exactly: %s')

/**
 * An edition read from Redis that this instance will not take: too large to read, a version no
 * instance writes, or too costly to build. The address keeps serving the edition it had.
 */
export const GPT_ERR_EDITION_REFUSED = createError<'GPT_ERR_EDITION_REFUSED', Named>(
  'GPT_ERR_EDITION_REFUSED', 'fastify-gpt address %s: the edition stored in Redis is refused here: %s')

// The three below are not registration problems: they carry a failed act into Fastify's error path
// (the host's onError hooks and error handler see them, `cause` holding what the act threw), while
// the client still gets the bare 500 or 503 (docs/hosts.md).

/** `act` threw or rejected, or its result could not be sent as JSON; `cause` is what it threw. */
export const GPT_ERR_ACT_FAILED = createError<'GPT_ERR_ACT_FAILED', [...Named, options: { cause: Error | undefined }]>(
  'GPT_ERR_ACT_FAILED', 'fastify-gpt address %s: the act failed: %s', 500)

/** `act`'s result is not one the `result` form admits: it is never sent (the act fails closed). */
export const GPT_ERR_RESULT_INVALID = createError<'GPT_ERR_RESULT_INVALID', Named>(
  'GPT_ERR_RESULT_INVALID', 'fastify-gpt address %s: the act\'s result is not one its result form admits: %s', 500)

/** `act` ran past `actTimeout`: its late result is dropped. */
export const GPT_ERR_ACT_TIMEOUT = createError<'GPT_ERR_ACT_TIMEOUT', Named>(
  'GPT_ERR_ACT_TIMEOUT', 'fastify-gpt address %s: the act ran past actTimeout: %s', 503)

// The two below stay plain Errors: lint() takes any RangeError whose message says "call stack" for its own overflow.

/** The form is larger than `limits.formBytes` (src/limits.ts): refused before anything costly is done with it. */
export const GPT_ERR_FORM_TOO_LARGE = createError<'GPT_ERR_FORM_TOO_LARGE', Named>(
  'GPT_ERR_FORM_TOO_LARGE', 'fastify-gpt address %s: the form is too large: %s')

/**
 * The form nests deeper than `limits.formDepth`, or deeper than the validator can compile in this
 * process: refused before anything recurses through it, or when compiling it ran out of stack.
 */
export const GPT_ERR_FORM_TOO_DEEP = createError<'GPT_ERR_FORM_TOO_DEEP', Named>(
  'GPT_ERR_FORM_TOO_DEEP', 'fastify-gpt address %s: the form is too deep: %s')

/** The prompt, the messages or a stored edition is larger than `limits` allows (src/limits.ts). */
export const GPT_ERR_CONTENT_TOO_LARGE = createError<'GPT_ERR_CONTENT_TOO_LARGE', Named>(
  'GPT_ERR_CONTENT_TOO_LARGE', 'fastify-gpt address %s: the content is too large: %s', 500, RangeError)

/** A link in `links` (or given with an act's result) that is not a path on this host or an http(s) URL elsewhere, or says more than it may. */
export const GPT_ERR_LINK_INVALID = createError<'GPT_ERR_LINK_INVALID', Named>(
  'GPT_ERR_LINK_INVALID', 'fastify-gpt address %s: a link is invalid: %s', 500, TypeError)

/** Links whose `Link` header field, with any the reply already carries, would pass 8192 bytes: Node's clients refuse 16 KiB of headers in all. */
export const GPT_ERR_LINK_HEADER_TOO_LARGE = createError<'GPT_ERR_LINK_HEADER_TOO_LARGE', Named>(
  'GPT_ERR_LINK_HEADER_TOO_LARGE', 'fastify-gpt address %s: the Link header is too large: %s', 500, RangeError)

/** A link to a path on this host where no fastify-gpt address is registered (checked when the host is ready). */
export const GPT_ERR_LINK_UNRESOLVED = createError<'GPT_ERR_LINK_UNRESOLVED', Named>(
  'GPT_ERR_LINK_UNRESOLVED', 'fastify-gpt address %s: a link names no address on this host: %s')

/** Two addresses that would be one MCP tool, or a tool name MCP does not allow (checked when the host is ready). */
export const GPT_ERR_MCP_TOOL_NAME = createError<'GPT_ERR_MCP_TOOL_NAME', Named>(
  'GPT_ERR_MCP_TOOL_NAME', 'fastify-gpt MCP bridge %s: %s')
