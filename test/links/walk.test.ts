// The walk of docs/links.md, through real curl and jq against the example host as `npm start`
// runs it (example/host.js, built: it imports the package), on a loopback port.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { promisify } from 'node:util'
import { startChild, type ChildHost } from '../helpers/child-host.ts'
import { freePort } from '../helpers/port.ts'

const run = promisify(execFile)

/** Runs a bash script with BASE set, in a directory of its own; resolves to what it printed. */
async function walk (script: string, base: string): Promise<string> {
  const cwd = mkdtempSync(join(tmpdir(), 'links-walk-'))
  const { stdout } = await run('bash', ['-c', `set -euo pipefail\n${script}`], { cwd, env: { ...process.env, BASE: base }, timeout: 30_000 })
  return stdout
}

// An href is a path on the address's host or a URL: resolved as RFC 3986 says, for these two forms.
const RESOLVE = 'jq -rn --arg b "$BASE" --arg h "$href" \'if ($h | startswith("/")) then $b + $h else $h end\''

describe('the links walk with curl and jq (docs/links.md)', () => {
  let host: ChildHost
  let base = ''

  before(async () => {
    const port = await freePort()
    host = await startChild(['example/host.js'], {
      env: { PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', RATE_MAX: '0' },
      ready: (line) => line.includes('Server listening')
    })
    base = `http://127.0.0.1:${port}`
  })
  after(() => host.stop())

  it('the board\'s arrival names the poll in l and in its Link header, with what the poll says of itself', async () => {
    const [l, link] = (await walk('curl -s "$BASE/" | jq -c .l; curl -sI "$BASE/" | tr -d "\\r" | grep -i "^link:"', base)).trimEnd().split('\n')
    const named = JSON.parse(l!) as { href: string, p?: string }[]
    assert.deepEqual(named.find((entry) => entry.href === '/poll'), { href: '/poll', p: 'Vote once: tabs or spaces?' })
    // the same, in order, and then the host's API catalog (docs/catalog.md)
    assert.equal(link, `link: ${named.map((entry) => `<${entry.href}>; rel="related"`).join(', ')}, </.well-known/api-catalog>; rel="api-catalog"`)
  })

  it('an actor reads every linked arrival before entering, picks one, reads it afresh and acts', async () => {
    const script = `
x=$(curl -s "$BASE/")
# every address the board names, with what it says of itself: GETs only, nothing is entered
jq -r '.l[].href' <<<"$x" | while read -r href; do
  u=$(${RESOLVE})
  curl -s "$u" | jq -c --arg u "$u" '{u: $u, p: .p}'
done > g.jsonl
cat g.jsonl
# the choice among them is itself a form: an enum of the addresses read
jq -sc '{type: "object", properties: {go: {enum: map(.u)}}, required: ["go"], additionalProperties: false}' g.jsonl
# here jq chooses (a model would, under that form): the one about tabs
go=$(jq -r 'select(.p | test("tabs")) | .u' g.jsonl)
# the moment of contact: its form is read now, from the address itself, never from the link
y=$(curl -s "$go")
jq -c '{choice: .s.properties.choice.enum[0]}' <<<"$y" | curl -s "$go" -d@-
`
    const lines = (await walk(script, base)).trimEnd().split('\n')
    const read = lines.slice(0, -2).map((line) => JSON.parse(line) as { u: string, p: string })
    assert.ok(read.some((entry) => entry.u === `${base}/poll` && entry.p === 'Vote once: tabs or spaces?'), lines.join('\n'))
    assert.deepEqual(JSON.parse(lines.at(-2)!), { type: 'object', properties: { go: { enum: read.map((entry) => entry.u) } }, required: ['go'], additionalProperties: false })
    assert.equal(lines.at(-1), '{"tabs":1,"spaces":0}')
  })

  it('what a link says is what the target\'s own prompt says first: the two are read from one value', async () => {
    const script = `href=$(curl -s "$BASE/" | jq -r '.l[0].href'); u=$(${RESOLVE})
said=$(curl -s "$BASE/" | jq -r '.l[0].p'); own=$(curl -s "$u" | jq -r .p)
[ "\${own#"$said"}" != "$own" ] && echo same`
    assert.equal(await walk(script, base), 'same\n')
  })

  it('fastify-gpt check follows the board\'s links and finds every target an address', async () => {
    const { stdout } = await run(process.execPath, ['bin/fastify-gpt.js', 'check', `${base}/`], { timeout: 60_000 })
    assert.match(stdout, /pass {2}SHOULD {2}B-links-address/)
    assert.match(stdout, new RegExp(`Links \\(l followed 2 hops, plain GETs only\\): \\d+ addresses read\\n {2}${base}/ -> ${base}/poll`))
    assert.match(stdout, new RegExp(`\\n {2}${base}/poll names no address here\\n`))
  })

  it('the README\'s vote under an Idempotency-Key: the retry is the first answer again, and one vote', async () => {
    const script = [
      'before=$(curl -s "$BASE/poll" -d \'{"choice":"tabs"}\' | jq .spaces)',
      'first=$(curl -s "$BASE/poll" -H \'Idempotency-Key: "vote-7"\' -d \'{"choice":"spaces"}\')',
      'curl -si "$BASE/poll" -H \'Idempotency-Key: "vote-7"\' -d \'{"choice":"spaces"}\' | tr -d "\\r" > again',
      'grep -i "^idempotent-replayed: true$" again',
      'test "$(tail -n 1 again)" = "$first"',
      'echo "$before $(jq .spaces <<<"$first") $(curl -s "$BASE/poll" -d \'{"choice":"tabs"}\' | jq .spaces)"'
    ].join('\n')
    const lines = (await walk(script, base)).trimEnd().split('\n')
    const [before, first, later] = lines.at(-1)!.split(' ').map(Number)
    assert.deepEqual([first! - before!, later! - before!], [1, 1], lines.join('\n'))
  })
})
