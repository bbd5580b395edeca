#!/usr/bin/env bash
# Regenerates testdata/snapshot-golden/<page>.original.txt: the original OpenClaw's `ai`
# snapshot (Playwright's aria snapshot) of each golden page, exactly as
# `openclaw browser snapshot` prints it. It serves testdata/snapshot-golden/pages/ on
# loopback, starts the original's gateway (its own HOME; headless managed Chromium,
# noSandbox as root, private network allowed so the loopback pages pass its SSRF
# preflight), opens each page in a tab of its own, snapshots it and writes the file, then
# stops the browser and the gateway and removes its temporary HOME.
#
#   scripts/capture-peer-snapshots.sh                 # all pages
#   scripts/capture-peer-snapshots.sh form shop       # some pages
#   scripts/capture-peer-snapshots.sh --ours [pages]  # ours instead: bin/openclaw (make build first)
#                                                     # → <page>.ours-before.txt (OURS_SUFFIX=ours-before)
#
# Needs the original installed (../shared/peer/install-openclaw.sh; OPENCLAW_PEER overrides
# the wrapper path), python3, curl and Chromium (CHROMIUM, default /usr/bin/chromium).
# Nothing leaves loopback.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
gold=$root/testdata/snapshot-golden
peer=${OPENCLAW_PEER:-$HOME/.cache/openclaw-peer/bin/openclaw-peer}
chromium=${CHROMIUM:-/usr/bin/chromium}
[ -x "$peer" ] || { echo "capture-peer-snapshots: the original is not installed at $peer (run ../shared/peer/install-openclaw.sh)" >&2; exit 1; }
[ -x "$chromium" ] || { echo "capture-peer-snapshots: no Chromium at $chromium" >&2; exit 1; }

ours=false
if [ "${1:-}" = --ours ]; then ours=true; shift; fi
pages=("$@")
[ ${#pages[@]} -gt 0 ] || pages=(form shop radios iframe shadow list extras mixed)

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_ready() { # url seconds
  for _ in $(seq 1 $(($2 * 10))); do curl -fsS "$1" >/dev/null 2>&1 && return 0; sleep 0.1; done; return 1; }

work=$(mktemp -d)
pids=()
P() { HOME="$work/home" "$peer" "$@"; }
cleanup() {
  # The managed Chromium is detached from the gateway: stop it through the gateway first.
  [ -n "${purl:-}" ] && P browser --url "$purl" --token "$token" stop >/dev/null 2>&1 || true
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  # Any Chromium still running on the temporary profile (found by its own user-data dir).
  for p in $(pgrep -f -- "--user-data-dir=$work/" 2>/dev/null || true); do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# The pages, on loopback.
hport=$(free_port)
(cd "$gold/pages" && exec python3 -m http.server --bind 127.0.0.1 "$hport") >"$work/http.log" 2>&1 &
pids+=($!)
wait_ready "http://127.0.0.1:$hport/form.html" 10 || { echo "capture-peer-snapshots: page server did not start" >&2; exit 1; }

if $ours; then
  # Ours: the local browser of bin/openclaw (no gateway needed), its own state dir, the
  # same allowances (headless, noSandbox as root, private network for the loopback pages).
  bin=${OPENCLAW_BIN:-$root/bin/openclaw}
  [ -x "$bin" ] || { echo "capture-peer-snapshots: no $bin (run make build)" >&2; exit 1; }
  suffix=${OURS_SUFFIX:-ours-before}
  mkdir -p "$work/ours"
  python3 - "$work/ours/openclaw.json" "$chromium" "$( [ "$(id -u)" = 0 ] && echo true || echo false)" "$(free_port)" <<'PY'
import json, sys
path, exe, ns, cdp = sys.argv[1], sys.argv[2], sys.argv[3] == "true", int(sys.argv[4])
json.dump({"browser": {"headless": True, "noSandbox": ns, "executablePath": exe,
                       "ssrfPolicy": {"dangerouslyAllowPrivateNetwork": True},
                       "profiles": {"openclaw": {"cdpPort": cdp}}}}, open(path, "w"), indent=2)
PY
  O() { OPENCLAW_STATE_DIR="$work/ours" "$bin" "$@"; }
  trap 'O browser stop >/dev/null 2>&1 || true; cleanup' EXIT
  O browser start >"$work/start.out" 2>&1 || { echo "capture-peer-snapshots: our browser start failed" >&2; cat "$work/start.out" >&2; exit 1; }
  version=$(O --version 2>/dev/null | tail -1)
  for page in "${pages[@]}"; do
    [ -f "$gold/pages/$page.html" ] || { echo "capture-peer-snapshots: no page $page.html" >&2; exit 1; }
    # Not on a terminal our CLI prints the result JSON; the text a terminal shows is content.0.text.
    tid=$(O browser open "http://127.0.0.1:$hport/$page.html" --query details.targetId --raw)
    # (A function, not a bare expression: ours-before never resolves `--fn 'expr'`.)
    O browser wait --fn '() => document.readyState === "complete"' --target-id "$tid" >/dev/null
    O browser snapshot --target-id "$tid" --query content.0.text --raw >"$work/$page.txt"
    mv "$work/$page.txt" "$gold/$page.$suffix.txt"
    O browser close "$tid" >/dev/null 2>&1 || true
    echo "captured ours $page ($(wc -l <"$gold/$page.$suffix.txt") lines) with $version"
  done
  exit 0
fi

# The original's config: its browser headless on our Chromium, loopback pages allowed.
ns=false
[ "$(id -u)" = 0 ] && ns=true
mkdir -p "$work/home/.openclaw"
python3 - "$work/home/.openclaw/openclaw.json" "$chromium" "$ns" "$(free_port)" <<'PY'
import json, sys
path, exe, ns, cdp = sys.argv[1], sys.argv[2], sys.argv[3] == "true", int(sys.argv[4])
cfg = {"browser": {"enabled": True, "headless": True, "noSandbox": ns, "executablePath": exe,
                   "defaultProfile": "openclaw",
                   "ssrfPolicy": {"dangerouslyAllowPrivateNetwork": True},
                   "profiles": {"openclaw": {"cdpPort": cdp, "color": "#FF4500"}}}}
json.dump(cfg, open(path, "w"), indent=2)
PY

token=golden-capture-token
pport=$(free_port)
HOME="$work/home" "$peer" gateway run --allow-unconfigured --bind loopback --auth token --token "$token" \
  --port "$pport" >"$work/peer.log" 2>&1 &
pids+=($!)
wait_ready "http://127.0.0.1:$pport/readyz" 120 || { echo "capture-peer-snapshots: the original's gateway did not start" >&2; tail -20 "$work/peer.log" >&2; exit 1; }
purl=ws://127.0.0.1:$pport
B() { P browser --url "$purl" --token "$token" --timeout 60000 "$@"; }

B start >"$work/start.out" 2>&1 || { echo "capture-peer-snapshots: browser start failed" >&2; cat "$work/start.out" >&2; exit 1; }
version=$(P --version 2>/dev/null | tail -1)
for page in "${pages[@]}"; do
  [ -f "$gold/pages/$page.html" ] || { echo "capture-peer-snapshots: no page $page.html" >&2; exit 1; }
  tid=$(B --json open "http://127.0.0.1:$hport/$page.html" | python3 -c 'import json,sys; print(json.load(sys.stdin)["targetId"])')
  # Let custom elements, frames and layout settle (the pages have no timers of their own).
  B wait --load load --target-id "$tid" >/dev/null
  B snapshot --target-id "$tid" >"$work/$page.txt"
  # Stored exactly as printed (the pages' links are relative, so the random port never shows).
  mv "$work/$page.txt" "$gold/$page.original.txt"
  B close "$tid" >/dev/null 2>&1 || true
  echo "captured $page ($(wc -l <"$gold/$page.original.txt") lines) with $version"
done
