#!/usr/bin/env bash
# Holds what users get to a bound, for CI (.ci/run, docs/decisions.md "What an install brings"):
#   bash scripts/weigh.sh install   node_modules as `npm install` leaves it in a fresh clone, at most
#                                   200 MB: run right after `npm ci`, which installs the same tree
#                                   from the same lock, before `npm run setup:test` adds to it
#   bash scripts/weigh.sh package   the tarball `npm pack` makes, at most 600 kB (as npm counts
#                                   them, 1,000 bytes): run once dist/ is built, nothing is built here
set -euo pipefail
cd "$(dirname "$0")/.."

MB=200
KB=600

case "${1:-}" in
  install)
    size=$(du -sm node_modules | cut -f1)
    echo "weigh: node_modules after the install: $size MB (at most $MB)"
    if [ "$size" -gt "$MB" ]; then
      echo "weigh: node_modules is past $MB MB: a package only tests need belongs in test/packages/" >&2
      exit 1
    fi
    ;;
  package)
    size=$(npm pack --dry-run --json --ignore-scripts | node -p "JSON.parse(require('fs').readFileSync(0, 'utf8'))[0].size")
    echo "weigh: the packed package: $((size / 1000)) kB (at most $KB)"
    if [ "$size" -gt $((KB * 1000)) ]; then
      echo "weigh: the packed package is past $KB kB: \`npm pack --dry-run\` lists what is in it" >&2
      exit 1
    fi
    ;;
  *)
    echo "usage: bash scripts/weigh.sh install|package" >&2
    exit 2
    ;;
esac
