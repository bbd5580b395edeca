#!/usr/bin/env bash
# Scheduler overhead with many idle jobs: starts `openclaw serve` on a
# fresh state dir, adds N jobs (default 10000) that do not fire during the
# measurement (daily cron times in several zones, hourly `every`, one-shots
# a week out), then samples the gateway's CPU time and RSS for D seconds
# (default 60) and prints CPU % of one core and RSS.
# Usage: scripts/cron-idle-bench.sh [bin/openclaw] [N] [D] [PORT]
set -euo pipefail
bin=${1:-bin/openclaw}
n=${2:-10000}
d=${3:-60}
port=${4:-19102}
state=$(mktemp -d)
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$state"' EXIT
OPENCLAW_STATE_DIR=$state "$bin" serve --port "$port" --auth token --token bench >"$state/log" 2>&1 &
pid=$!
for _ in $(seq 50); do curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
rss() { awk '/^VmRSS/ {print $2}' "/proc/$pid/status"; }
echo "gateway pid $pid, RSS with no jobs: $(( $(rss) / 1024 )) MiB"
hour=$(( ($(date -u +%H) + 12) % 24 )) # daily jobs half a day away from now
zones=(UTC America/New_York Europe/Berlin Australia/Sydney Asia/Kolkata)
week=$(date -u -d '+7 days' +%Y-%m-%dT%H:%M:%SZ)
gen() {
  for i in $(seq 1 "$n"); do
    case $((i % 4)) in
      0) printf '{"name":"idle-%d","schedule":{"kind":"every","everyMs":%d},"sessionTarget":"main","wakeMode":"now","payload":{"kind":"systemEvent","text":"x"}}\n' "$i" $(( 3600000 + i * 1000 )) ;;
      1) printf '{"name":"idle-%d","schedule":{"kind":"at","at":"%s"},"sessionTarget":"main","wakeMode":"now","payload":{"kind":"systemEvent","text":"x"}}\n' "$i" "$week" ;;
      *) printf '{"name":"idle-%d","schedule":{"kind":"cron","expr":"%d %d * * *","tz":"%s"},"sessionTarget":"main","wakeMode":"now","payload":{"kind":"systemEvent","text":"x"}}\n' "$i" $((i % 60)) "$hour" "${zones[$((i % 5))]}" ;;
    esac
  done
}
t0=$(date +%s.%N)
gen | xargs -d '\n' -P 4 -I{} "$bin" gateway call cron.add --url "ws://127.0.0.1:$port" --token bench --params '{}' >/dev/null
t1=$(date +%s.%N)
jobs=$("$bin" gateway call cron.status --url "ws://127.0.0.1:$port" --token bench --query jobs)
echo "added $jobs jobs in $(printf '%.1f' "$(echo "$t1 - $t0" | bc)") s; RSS now $(( $(rss) / 1024 )) MiB"
ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
hz=$(getconf CLK_TCK)
c0=$(ticks); s0=$(date +%s.%N); peak=0
for _ in $(seq "$d"); do sleep 1; r=$(rss); [ "$r" -gt "$peak" ] && peak=$r; done
c1=$(ticks); s1=$(date +%s.%N)
cpu=$(echo "scale=3; ($c1 - $c0) * 100 / $hz / ($s1 - $s0)" | bc)
echo "idle with $jobs jobs over ${d} s: CPU ${cpu}% of one core, RSS $(( $(rss) / 1024 )) MiB (peak $(( peak / 1024 )) MiB)"
