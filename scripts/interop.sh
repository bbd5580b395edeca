#!/usr/bin/env bash
# Interoperability matrix against the original OpenClaw (npm openclaw@2026.9.6):
#   1. the original CLI against our gateway (`openclaw serve`);
#   2. our CLI against the original gateway (`openclaw-peer gateway run`).
# Installs the peer with scripts/install-peer.sh (npm registry only).
# Usage: scripts/interop.sh [path/to/openclaw]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/bin/openclaw}
peer_dir=${OPENCLAW_PEER_DIR:-$HOME/.cache/openclaw-peer}
peer=$peer_dir/bin/openclaw-peer
installer=${OPENCLAW_PEER_INSTALLER:-$root/scripts/install-peer.sh}

if [ ! -x "$peer" ]; then
  echo "installing the peer (npm, about a minute)…" >&2
  bash "$installer" >&2 || { echo "peer install failed" >&2; exit 1; }
fi

work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
token=interop-token
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_ready() { # url seconds
  for _ in $(seq 1 $(($2 * 10))); do curl -fsS "$1" >/dev/null 2>&1 && return 0; sleep 0.1; done; return 1; }
# check NAME JSON-PYTHON-EXPR CMD...: run CMD, parse stdout as JSON, evaluate the expression on it.
pass=0; fail=0; rows=()
check() {
  local name=$1 expr=$2; shift 2
  local out rc
  out=$("$@" 2>"$work/stderr"); rc=$?
  if [ $rc -eq 0 ] && printf '%s' "$out" | python3 -c "import json,sys; d=json.load(sys.stdin); sys.exit(0 if ($expr) else 1)" 2>/dev/null; then
    rows+=("| $name | pass |"); pass=$((pass + 1))
  else
    rows+=("| $name | FAIL (exit $rc) |"); fail=$((fail + 1))
    { echo "--- $name (exit $rc)"; echo "$out" | head -c 2000; echo; head -c 2000 "$work/stderr"; } >&2
  fi
}

# checkfirst: like check, but the command prints JSON lines; the expression sees the first.
checkfirst() {
  local name=$1 expr=$2; shift 2
  local out rc
  out=$("$@" 2>"$work/stderr"); rc=$?
  if [ $rc -eq 0 ] && printf '%s' "$out" | head -n 1 | python3 -c "import json,sys; d=json.load(sys.stdin); sys.exit(0 if ($expr) else 1)" 2>/dev/null; then
    rows+=("| $name | pass |"); pass=$((pass + 1))
  else
    rows+=("| $name | FAIL (exit $rc) |"); fail=$((fail + 1))
    { echo "--- $name (exit $rc)"; echo "$out" | head -c 2000; echo; head -c 2000 "$work/stderr"; } >&2
  fi
}

# checkfail: the command must fail (the original CLI prints its error envelope as JSON
# on stdout); the expression sees that JSON, so the failure is the expected one.
checkfail() {
  local name=$1 expr=$2; shift 2
  local out rc
  out=$("$@" 2>"$work/stderr"); rc=$?
  if [ $rc -ne 0 ] && printf '%s' "$out" | python3 -c "import json,sys; d=json.load(sys.stdin); sys.exit(0 if ($expr) else 1)" 2>/dev/null; then
    rows+=("| $name | pass |"); pass=$((pass + 1))
  else
    rows+=("| $name | FAIL (exit $rc) |"); fail=$((fail + 1))
    { echo "--- $name (exit $rc)"; echo "$out" | head -c 2000; echo; head -c 2000 "$work/stderr"; } >&2
  fi
}

# checktext: the command must succeed; the expression sees its stdout and stderr as text t.
checktext() {
  local name=$1 expr=$2; shift 2
  local rc
  "$@" >"$work/text" 2>&1; rc=$?
  if [ $rc -eq 0 ] && python3 -c "import sys; t=open(sys.argv[1]).read(); sys.exit(0 if ($expr) else 1)" "$work/text" 2>/dev/null; then
    rows+=("| $name | pass |"); pass=$((pass + 1))
  else
    rows+=("| $name | FAIL (exit $rc) |"); fail=$((fail + 1))
    { echo "--- $name (exit $rc)"; head -c 3000 "$work/text"; } >&2
  fi
}

# 1. The original CLI against our gateway.
port=$(free_port)
mkdir -p "$work/ours" "$work/peerhome"
OPENCLAW_STATE_DIR="$work/ours" "$bin" serve --port "$port" --auth token --token "$token" >"$work/ours.log" 2>&1 &
pids+=($!)
wait_ready "http://127.0.0.1:$port/readyz" 10 || { echo "our gateway did not start" >&2; cat "$work/ours.log" >&2; exit 1; }
url=ws://127.0.0.1:$port
P() { HOME="$work/peerhome" "$peer" "$@"; }
check "peer: gateway call health" 'd.get("ok") is True' P gateway call health --url "$url" --token "$token" --json
check "peer: gateway call status" 'd["ok"] is True and d["protocol"] == 4 and d["connections"]["operators"] >= 1 and d["gateway"]["authMode"] == "token"' \
  P gateway call status --url "$url" --token "$token" --json
check "peer: gateway call config.get" '"hash" in d and "config" in d and d["exists"] is False' P gateway call config.get --url "$url" --token "$token" --json
# With no config file the original accepts any baseHash (requireConfigBaseHash skips a missing file).
check "peer: config.patch with a baseHash and no config file" 'd.get("ok") is True and d["config"]["tools"]["profile"] == "messaging"' \
  P gateway call config.patch --url "$url" --token "$token" --json --params "{\"raw\":\"{tools:{profile:'messaging'}}\",\"baseHash\":\"no-file-yet\"}"
# Without baseHash a patch may change only ui.prefs (last writer wins), as the original.
checkfail "peer: hashless config.patch of tools.profile refused" \
  'd["error"]["message"] == "config base hash required for tools.profile; re-run config.get and retry with baseHash"' \
  P gateway call config.patch --url "$url" --token "$token" --json --params "{\"raw\":\"{tools:{profile:'full'}}\"}"
check "peer: hashless config.patch of ui.prefs accepted" 'd.get("ok") is True and d["config"]["ui"]["prefs"]["theme"] == "claw"' \
  P gateway call config.patch --url "$url" --token "$token" --json --params "{\"raw\":\"{ui:{prefs:{theme:'claw'}}}\"}"
hash=$(P gateway call config.get --url "$url" --token "$token" --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["hash"])')
check "peer: gateway call config.patch (baseHash)" 'd.get("ok") is True' \
  P gateway call config.patch --url "$url" --token "$token" --json --params "{\"raw\":\"{tools:{profile:'coding'}}\",\"baseHash\":\"$hash\"}"
check "peer: config.get after patch" 'd["config"]["tools"]["profile"] == "coding"' P gateway call config.get --url "$url" --token "$token" --json
checkfail "peer: stale baseHash refused" 'd["error"]["code"] == "INVALID_REQUEST" and d["error"]["message"] == "config changed since last load; re-run config.get and retry"' \
  P gateway call config.patch --url "$url" --token "$token" --json --params "{\"raw\":\"{}\",\"baseHash\":\"$hash\"}"
check "peer: gateway call tools.catalog" 'len(d.get("tools", d.get("groups", []))) > 0' P gateway call tools.catalog --url "$url" --token "$token" --json
# `openclaw health` takes no --url: it reads the gateway from the environment.
check "peer: health" 'd["ok"] is True and d["defaultAgentId"] == "main" and isinstance(d["channels"], dict) and "sessions" in d' \
  env OPENCLAW_GATEWAY_URL="$url" OPENCLAW_GATEWAY_TOKEN="$token" HOME="$work/peerhome" "$peer" health --json
# server.version is the version the original compares, so its status does not warn of a mismatch.
checktext "peer: gateway status without a version mismatch warning" '"Connectivity probe: ok" in t and "Gateway version" in t and "is version" not in t and "mismatch" not in t' \
  P gateway status --url "$url" --token "$token"
# features.capabilities lets the original's models list send models.list.
check "peer: models list (capability published-model-catalog)" 'isinstance(d.get("models"), list)' \
  env OPENCLAW_GATEWAY_URL="$url" OPENCLAW_GATEWAY_TOKEN="$token" HOME="$work/peerhome" "$peer" models list --json
# The original requires sessionKey on tools.effective; we accept it and take the agent from it.
check "peer: tools.effective with sessionKey" 'd["agentId"] == "ops" and len(d["allowed"]) > 0' \
  P gateway call tools.effective --url "$url" --token "$token" --json --params '{"sessionKey":"agent:ops:main"}'

# The probe connects as cli/probe without a device: the original gateway grants it no
# scopes ("connected_no_operator_scope"), and so does ours.
check "peer: gateway status (probe)" 'd["rpc"]["ok"] is True and d["rpc"]["auth"]["scopes"] == []' P gateway status --url "$url" --token "$token" --json
checkfirst "peer: logs (logs.tail)" 'd.get("type") == "meta" and d.get("file", "").endswith("gateway.log")' \
  env OPENCLAW_GATEWAY_URL="$url" OPENCLAW_GATEWAY_TOKEN="$token" HOME="$work/peerhome" "$peer" logs --json
# Family cases, one file each (scripts/interop.d/peer-*.sh), so families add theirs without
# editing this file. They see $url, $token, $work, $bin and the helpers above.
for f in "$root"/scripts/interop.d/peer-*.sh; do [ -e "$f" ] && . "$f"; done

# 2. Our CLI against the original gateway.
pport=$(free_port)
mkdir -p "$work/peergw"
HOME="$work/peergw" "$peer" gateway run --allow-unconfigured --auth token --token "$token" --port "$pport" >"$work/peer.log" 2>&1 &
pids+=($!)
if wait_ready "http://127.0.0.1:$pport/readyz" 90; then
  purl=ws://127.0.0.1:$pport
  check "ours → peer: gateway call health" 'd.get("ok") is True' "$bin" gateway call health --url "$purl" --token "$token" --json
  check "ours → peer: health" 'd["ok"] is True and "configReload" in d' "$bin" health --url "$purl" --token "$token" --json
  # The same base-hash rules, on the original gateway itself (it starts with no config file).
  # (the original's first write creates its config and can take a while on a loaded machine)
  check "ours → peer: config.patch with a baseHash and no config file" 'd.get("ok") is True and d["config"]["tools"]["profile"] == "coding"' \
    "$bin" gateway call config.patch --url "$purl" --token "$token" --json --timeout 120s --params "{\"raw\":\"{tools:{profile:'coding'}}\",\"baseHash\":\"no-file-yet\"}"
  checkfail "ours → peer: hashless config.patch of tools.profile refused" \
    'd["error"]["message"] == "config base hash required for tools.profile; re-run config.get and retry with baseHash"' \
    "$bin" gateway call config.patch --url "$purl" --token "$token" --json --params "{\"raw\":\"{tools:{profile:'full'}}\"}"
  check "ours → peer: gateway call config.get" '"hash" in d' "$bin" gateway call config.get --url "$purl" --token "$token" --json
  check "ours → peer: gateway status" 'd["reachable"] is True and d["protocol"] == 4 and isinstance(d["presence"], list)' "$bin" gateway status --url "$purl" --token "$token" --json
  check "ours → peer: logs" 'isinstance(d.get("lines"), list)' "$bin" logs --url "$purl" --token "$token" --json
  # Family cases against the original gateway (scripts/interop.d/ours-*.sh): $purl, $token.
  for f in "$root"/scripts/interop.d/ours-*.sh; do [ -e "$f" ] && . "$f"; done
else
  rows+=("| peer gateway start | FAIL (not ready in 90 s) |"); fail=$((fail + 1))
  tail -20 "$work/peer.log" >&2
fi

echo "| check | result |"
echo "|---|---|"
printf '%s\n' "${rows[@]}"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
