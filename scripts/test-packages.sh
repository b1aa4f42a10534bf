#!/usr/bin/env bash
# Installs the npm packages only the tests need (test/packages/package.json: llama.cpp and XGrammar,
# the OpenAI and Anthropic SDKs' schema transforms, the MCP SDK's client, playwright-core to drive
# Chromium, arethetypeswrong for the packed package, @fastify/swagger-ui for the recipe app, the
# official MCP conformance suite in two versions for check:mcp-conformance) from
# their own lock into test/packages/node_modules, and links each into node_modules/, where the
# tests, the scripts and src/check/ look for them. `npm install` and `npm ci` take the links away:
# run this again after either (`npm run setup:test` runs it first); with the packages still in
# place, it only links.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -d node_modules ]; then
  echo "setup:test: run \`npm install\` first (it would remove what this adds)" >&2
  exit 1
fi

# Of llama.node's optional dependencies, only the build for this machine's CPU, at the version it
# names: the builds for CUDA and Vulkan would be about 270 MB more.
cpu=$(node -p "const { platform, arch } = process; const name = \`@fugood/node-llama-\${platform}-\${arch}\`;
  \`\${name}@\${require('./test/packages/package-lock.json').packages['node_modules/@fugood/llama.node'].optionalDependencies[name]}\`")
if [ ! -d "test/packages/node_modules/${cpu%@*}" ] || [ ! test/packages/node_modules/.package-lock.json -nt test/packages/package-lock.json ]; then
  npm ci --prefix test/packages --omit=optional --no-audit --no-fund --silent
  npm install --prefix test/packages --omit=optional --no-save --no-audit --no-fund --silent "$cpu"
fi

# The official MCP Fastify adapter (a benchmark's peer) names fastify as a peer, which npm installs
# beside it: the plugins here must meet the one Fastify of node_modules/ (the lock's, or the lowest
# the peer range admits in CI's second pass), never a second copy with other types.
rm -rf test/packages/node_modules/fastify

names=$(node -p "Object.keys(require('./test/packages/package.json').dependencies).join(' ')")
for name in $names; do
  mkdir -p "node_modules/$(dirname "$name")"
  ln -sfn "$PWD/test/packages/node_modules/$name" "node_modules/$name"
done
# the one command of theirs that a script of ours runs (check:package)
ln -sfn "$PWD/test/packages/node_modules/.bin/attw" node_modules/.bin/attw
echo "setup:test: linked into node_modules: $names"
