#!/usr/bin/env bash
# The extension's unit tests (package.json "test": esbuild, then node --test).
set -euo pipefail
if ! command -v npm >/dev/null; then
  echo "SKIP: npm is not installed (scripts/install-e2e-deps installs Node and npm)"
  exit 77
fi
cd "$1"
npm test
