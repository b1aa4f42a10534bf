// Lets `node --test` run the TypeScript tests on every supported Node version.
import { register } from 'tsx/esm/api'

register()
