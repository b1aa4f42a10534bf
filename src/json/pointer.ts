// JSON Pointers (RFC 6901): how every room names a place in a form or a value.

/** A member name as a reference token: `~` and `/` escaped. */
export const escape = (key: string): string => key.replaceAll('~', '~0').replaceAll('/', '~1')

/** A reference token as the member name it stands for. */
export const unescape = (token: string): string => token.replaceAll('~1', '/').replaceAll('~0', '~')

/** A JSON Pointer for messages; '' (the whole form) reads as "the form". */
export const pointer = (path: string): string => (path === '' ? 'the form' : path)
