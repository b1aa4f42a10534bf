import { escape } from '../json/pointer.ts'

/**
 * Where a body repeats a member name: the name and the JSON Pointer of its object ('' for the root). Called only
 * once a body is known to hold a duplicate (see parse.ts), so that a rejection's reason, in the log
 * or with `explain`, names it; one pass over text that JSON.parse has already accepted.
 */
export function findDuplicate (text: string): { name: string, at: string } | undefined {
  // One frame per open container: its names so far (objects) or next index (arrays), and its
  // place; `key` holds the name just read, until its value is passed.
  const frames: Array<{ names: Set<string> | undefined, index: number, at: string }> = []
  let key: string | undefined
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (c === '"') {
      const end = stringEnd(text, i)
      const frame = frames[frames.length - 1]
      if (frame?.names !== undefined && key === undefined && text[nextToken(text, end + 1)] === ':') {
        const name = JSON.parse(text.slice(i, end + 1)) as string
        if (frame.names.has(name)) return { name, at: frame.at }
        frame.names.add(name)
        key = name
      }
      i = end
    } else if (c === '{' || c === '[') {
      const parent = frames[frames.length - 1]
      const at = parent === undefined ? '' : `${parent.at}/${place(parent, key)}`
      frames.push({ names: c === '{' ? new Set() : undefined, index: 0, at })
      key = undefined
    } else if (c === '}' || c === ']') {
      frames.pop()
      key = undefined
    } else if (c === ',') {
      const frame = frames[frames.length - 1]
      if (frame !== undefined) frame.index++
      key = undefined
    }
  }
  return undefined
}

const place = (parent: { names: Set<string> | undefined, index: number }, key: string | undefined): string =>
  parent.names === undefined ? String(parent.index) : escape(key ?? '')

function stringEnd (text: string, start: number): number {
  let i = start + 1
  while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1
  return i
}

function nextToken (text: string, from: number): number {
  let i = from
  while (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r') i++
  return i
}
