import neostandard from 'neostandard'

// The rooms of src/ and the one direction of their imports (docs/architecture.md). A room may
// import its own modules and the rooms named after it here; `import type` counts too, since a
// reader follows it all the same. Circles: scripts/import-circles.ts, run by `npm run lint`.
const ROOMS = ['jobs', 'address', 'links', 'form', 'parse', 'page', 'lint', 'unroll', 'check', 'cli']
const LEAVES = ['json', 'errors.ts', 'limits.ts', 'types.ts', 'defaults.ts']

/** A rule for the files of `room`: every room of ours not in `allowed` is out of reach. */
function room (files, allowed, why, extra = []) {
  const forbidden = [...ROOMS, 'index.ts', ...LEAVES].filter((name) => !allowed.includes(name))
  const names = forbidden.map((name) => name.replaceAll('.', '\\.')).join('|')
  return {
    files,
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { regex: `^(\\.\\./)+(${names})(/|$)`, message: why },
          ...extra
        ]
      }]
    }
  }
}

export default [
  ...neostandard({ ts: true, ignores: ['dist/**', 'node_modules/**', '.consumer/**', '.ladder-build/**'] }),
  room(['src/json/**', 'src/errors.ts', 'src/limits.ts', 'src/types.ts', 'src/defaults.ts'], LEAVES,
    'a leaf imports only other leaves: every room may use it'),
  room(['src/form/**'], ['form', ...LEAVES], 'the validator (form/) imports only leaves'),
  room(['src/parse/**'], ['parse', ...LEAVES], 'the strict parser (parse/) imports only leaves'),
  room(['src/lint/**'], ['lint', ...LEAVES], 'lint/ imports only leaves: it judges forms without the runtime'),
  room(['src/unroll/**'], ['unroll', ...LEAVES], 'unroll/ imports only leaves'),
  room(['src/links/**'], ['links', ...LEAVES], 'links/ imports only leaves: the runtime asks it, it never asks the runtime'),
  room(['src/page/**'], ['page', 'lint', 'links', ...LEAVES], 'page/ imports leaves, lint\'s types and the type of a link only',
    [
      { regex: '^(\\.\\./)+lint/(?!types\\.ts$)', message: 'page/ may read lint\'s types (lint/types.ts), nothing else of lint' },
      { regex: '^(\\.\\./)+links/(?!option\\.ts$)', message: 'page/ may read the type of a link (links/option.ts), nothing else of links' }
    ]),
  room(['src/check/**'], ['check', 'parse', 'lint', ...LEAVES],
    'the checker (check/) never imports the runtime (address/) or the validator (form/): its judge stays independent of what it judges'),
  room(['src/cli/**'], ['cli', 'check', 'lint', 'form', 'parse', ...LEAVES], 'a command (cli/) drives the products, never the runtime (address/)'),
  room(['src/address/**'], ['address', 'links', 'form', 'parse', 'page', 'lint', 'unroll', ...LEAVES],
    'the runtime (address/) imports the rooms below it, never jobs, the checker or a command'),
  room(['src/jobs/**'], ['jobs', 'address', 'form', 'parse', 'page', ...LEAVES],
    'jobs/ is a capability on top of the runtime: it imports address/ and what address/ uses, never the checker or a command')
]
