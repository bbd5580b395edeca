#!/usr/bin/env bash
# Whole-process wall time of CLI calls (median of N runs each, timed in Go
# around fork/exec/wait by cmd/clibench), next to a trivial Go program as the
# machine's floor.
# Usage: scripts/bench-cli.sh [path/to/openclaw] [runs] [path/to/other/openclaw]
# With a third argument the CLI timings are paired: the other binary runs the
# same command in alternation and the median of the differences is printed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/bin/openclaw}
runs=${2:-20}
vs=${3:-}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
work=$(mktemp -d)
gw=
trap '[ -n "$gw" ] && kill $gw 2>/dev/null; rm -rf "$work"' EXIT
export OPENCLAW_STATE_DIR="$work/state" HOME="$work"
mkdir -p "$work/state" "$work/floor"
head -c 768 /dev/urandom | base64 > "$work/small.txt"

(cd "$root" && go build -o "$work/clibench" ./cmd/clibench)
printf 'package main\nfunc main() { println("hi") }\n' > "$work/floor/main.go"
(cd "$work/floor" && printf 'module floor\ngo 1.26\n' > go.mod && go build -o floor .)
cb() {
  if [ -n "$vs" ]; then "$work/clibench" -n "$runs" -vs "$vs" "$@"; else "$work/clibench" -n "$runs" "$@"; fi
}

"$work/clibench" -n "$runs" -label "floor: a trivial Go program" -- "$work/floor/floor"
cb -label "openclaw tools list --json" -- "$bin" tools list --json
cb -tty -label "openclaw tools list (on a terminal)" -- "$bin" tools list
cb -label "openclaw read <1 KiB file>" -- "$bin" read "$work/small.txt"
printf '{"tools":{"profile":"coding"},"gateway":{"port":18789}}\n' > "$work/state/openclaw.json"
cb -label "openclaw tools list --json (config file)" -- "$bin" tools list --json
cb -label "openclaw read <1 KiB file> (config file)" -- "$bin" read "$work/small.txt"
cb -label "openclaw read <1 KiB file> --json (config file)" -- "$bin" read "$work/small.txt" --json
rm "$work/state/openclaw.json"
cb -label "openclaw --help" -- "$bin" --help

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$bin" serve --port "$port" --auth token --token bench >"$work/gw.log" 2>&1 &
gw=$!
for _ in $(seq 1 200); do
  curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break
  sleep 0.02
done
cb -label "openclaw gateway call health" -- "$bin" gateway call health --url "ws://127.0.0.1:$port" --token bench --json
