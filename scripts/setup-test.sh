#!/usr/bin/env bash
# Installs the tools `npm test` needs beyond Node and npm, on Debian or Ubuntu, and only what is
# missing: curl and jq (the draft's appendix pipeline), redis-server (shared rate limits), chromium
# (the HTML page in a browser; or CHROMIUM names another build, as the tests read it). Runs as
# root, without a terminal. `npm run setup:test` runs it after scripts/test-packages.sh.
set -euo pipefail

missing=()
for tool in curl jq redis-server chromium; do
  if [ "$tool" = chromium ] && [ -x "${CHROMIUM:-}" ]; then continue; fi
  command -v "$tool" >/dev/null || missing+=("$tool")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup:test: curl, jq, redis-server and chromium are all installed"
  exit 0
fi

if ! command -v apt-get >/dev/null; then
  echo "setup:test: missing ${missing[*]}; there is no apt-get here: install them with your system's package manager" >&2
  exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "setup:test: missing ${missing[*]}; installing them takes root: run \`sudo bash scripts/setup-test.sh\`" >&2
  exit 1
fi

echo "setup:test: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${missing[@]}"
