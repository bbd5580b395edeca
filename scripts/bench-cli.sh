#!/usr/bin/env bash
# Whole-process wall time of CLI calls: median (and min/max) of N runs each.
# Usage: scripts/bench-cli.sh [path/to/openclaw] [runs]
set -euo pipefail
bin=${1:-bin/openclaw}
runs=${2:-20}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
work=$(mktemp -d)
trap 'kill $gw 2>/dev/null || true; rm -rf "$work"' EXIT
export OPENCLAW_STATE_DIR="$work/state" HOME="$work"
mkdir -p "$work/state"
head -c 1024 /dev/urandom | base64 > "$work/small.txt"

# median_ms LABEL CMD...: runs CMD $runs times, prints median/min/max in ms.
median_ms() {
  local label=$1; shift
  local times=()
  for ((i = 0; i < runs; i++)); do
    local t0 t1
    t0=$(date +%s%N)
    "$@" >/dev/null 2>&1 || { echo "$label: command failed: $*" >&2; return 1; }
    t1=$(date +%s%N)
    times+=($(( (t1 - t0) / 1000 )))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk -v label="$label" -v n="$runs" '
    { a[NR] = $1 }
    END { m = (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2;
          printf "%-40s median %6.2f ms  min %6.2f ms  max %6.2f ms  (%d runs)\n", label, m / 1000, a[1] / 1000, a[n] / 1000, n }'
}

median_ms "openclaw tools list --json" "$bin" tools list --json
median_ms "openclaw read <1 KiB file>" "$bin" read "$work/small.txt"
median_ms "openclaw --help" "$bin" --help

if "$bin" serve --help >/dev/null 2>&1; then
  port=$((20000 + RANDOM % 20000))
  "$bin" serve --port "$port" --auth token --token bench >"$work/gw.log" 2>&1 &
  gw=$!
  for _ in $(seq 1 100); do
    curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break
    sleep 0.05
  done
  median_ms "openclaw gateway call health" "$bin" gateway call health --url "ws://127.0.0.1:$port" --token bench --json
  rss=$(awk '/VmRSS/ {print $2}' "/proc/$gw/status")
  echo "gateway idle RSS: $((rss / 1024)) MiB ($rss kB)"
fi
