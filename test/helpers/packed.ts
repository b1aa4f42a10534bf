// The package as a host installs it: `npm pack` of this checkout, unpacked into the node_modules of
// a fresh project. The projects live in a git-ignored folder of the checkout (.consumer/), so that
// their look-ups of fastify, typescript, tsx, @types/node and the hosts' plugins climb to its
// node_modules: no network.
import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'

export const run = promisify(execFile)
export const root = join(import.meta.dirname, '../..')

/** A fresh folder of .consumer/ named from `prefix`, and the tarball `npm pack` made in it from the built dist/. */
export async function pack (prefix: string): Promise<{ dir: string, tarball: string }> {
  if (!existsSync(join(root, 'dist/index.d.ts'))) throw new Error('dist/ is missing: run `npm run build` first')
  mkdirSync(join(root, '.consumer'), { recursive: true })
  const dir = mkdtempSync(join(root, '.consumer', prefix))
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: root })
  return { dir, tarball: join(dir, (JSON.parse(stdout) as Array<{ filename: string }>)[0]?.filename ?? '') }
}

/** Makes `home` a project of `type` ('module' or 'commonjs') with the packed package installed. */
export async function makeProject (home: string, tarball: string, type: string): Promise<void> {
  mkdirSync(join(home, 'node_modules'), { recursive: true })
  await run('tar', ['-xzf', tarball, '-C', join(home, 'node_modules')])
  renameSync(join(home, 'node_modules/package'), join(home, 'node_modules/fastify-gpt'))
  writeFileSync(join(home, 'package.json'), JSON.stringify({ private: true, type }))
}

/** The TypeScript in `modules`: its command, and its name and version with @types/node's. */
export function compilerIn (modules: string): { tsc: string, named: string } {
  // TypeScript 7's `typescript` starts its native compiler from bin/tsc as 5.x did; the preview's is tsgo.
  const typescript = ['typescript', '@typescript/native-preview'].find((name) => existsSync(join(modules, name))) ?? 'typescript'
  const versionOf = (name: string): string =>
    (JSON.parse(readFileSync(join(modules, name, 'package.json'), 'utf8')) as { version: string }).version
  return {
    tsc: join(modules, typescript, typescript === 'typescript' ? 'bin/tsc' : 'bin/tsgo'),
    named: `${typescript} ${versionOf(typescript)}, @types/node ${versionOf('@types/node')}`
  }
}

// Without this, a `node --test` started from a test reports to ours instead, and exits 0 anyway.
const { NODE_TEST_CONTEXT, ...env } = process.env

/** Runs a command; resolves to its output when it fails, to '' when it succeeds. */
export const failure = (file: string, args: string[], cwd: string): Promise<string> =>
  run(file, args, { cwd, env }).then(() => '', (error: { stdout?: string, stderr?: string }) =>
    `${error.stdout ?? ''}${error.stderr ?? ''}` || String(error))
