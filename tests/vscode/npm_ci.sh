#!/usr/bin/env bash
# Installs editors/vscode/node_modules from its package-lock.json unless it is
# already there and newer than the lock file. Exit 77 (skip) without npm.
set -euo pipefail
dir="$1"
if ! command -v npm >/dev/null; then
  echo "SKIP: npm is not installed (scripts/install-e2e-deps installs Node and npm)"
  exit 77
fi
cd "$dir"
if [ -d node_modules ] && [ node_modules -nt package-lock.json ] && [ -x node_modules/.bin/esbuild ]; then
  echo "node_modules is up to date"
  exit 0
fi
npm ci --no-audit --no-fund
touch node_modules
