// Text from an address, made safe to print: an address may put ESC, BEL or an OSC sequence in a
// member name, a header or a body, and a terminal would act on them. Every C0 and C1 control
// character but the line breaks we write ourselves, DEL, and the bidirectional overrides that
// make text read otherwise than it is, are written as escapes.

// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g

const escape = (char: string): string => {
  const code = char.charCodeAt(0)
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`
}

/** `text` with every character a terminal would act on escaped; tabs and line breaks kept only if `lines`. */
export function visible (text: string, lines = false): string {
  const shown = text.replace(UNSAFE, escape)
  return lines ? shown : shown.replace(/[\t\n]/g, (char) => char === '\t' ? '\\t' : '\\n')
}

/** JSON text safe to print: JSON.stringify leaves C1 controls and the overrides raw. */
export const visibleJson = (text: string): string =>
  text.replace(/[\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
