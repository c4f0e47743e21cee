#!/usr/bin/env bash
# Installs editors/vscode/node_modules from its package-lock.json unless it is
# already there and newer than the lock file. Fails without npm (scripts/install-e2e-deps
# installs it).
set -euo pipefail
dir="$1"
# Node and npm come from the project's scripts (make test runs them): their
# absence is a broken setup, not a reason to skip the extension's tests.
if ! command -v npm >/dev/null; then
  echo "FAIL: npm is not installed; run scripts/install-e2e-deps (it installs Node and npm)"
  exit 1
fi
cd "$dir"
if [ -d node_modules ] && [ node_modules -nt package-lock.json ] && [ -x node_modules/.bin/esbuild ]; then
  echo "node_modules is up to date"
  exit 0
fi
npm ci --no-audit --no-fund
touch node_modules
