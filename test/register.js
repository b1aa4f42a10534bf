// Lets `node --test` run the TypeScript tests on every supported Node version, and has an import of
// a package only the tests need, where `npm run setup:test` has not linked it, fail in one line
// that says so (test/helpers/test-packages.js).
import { register as registerHooks } from 'node:module'
import { register } from 'tsx/esm/api'

register()
registerHooks('./helpers/test-packages.js', import.meta.url)
