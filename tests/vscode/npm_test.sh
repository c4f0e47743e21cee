#!/usr/bin/env bash
# The extension's unit tests (package.json "test": esbuild, then node --test).
set -euo pipefail
# Node and npm come from the project's scripts (make test runs them): their
# absence is a broken setup, not a reason to skip the extension's tests.
if ! command -v npm >/dev/null; then
  echo "FAIL: npm is not installed; run scripts/install-e2e-deps (it installs Node and npm)"
  exit 1
fi
cd "$1"
npm test
