#!/usr/bin/env bash
# Package initialisation runs in every openclaw process, whatever the
# command: this prints what it allocates, summed per module and listed per
# package (largest first), from GODEBUG=inittrace=1. Allocation counts and
# bytes are exact from run to run; the clock column is one run's and noisy.
# Usage: scripts/init-report.sh [path/to/openclaw] [top N] [command args...]
# (default command: tools list --json, with a config file present)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/bin/openclaw}
top=${2:-15}
shift $(( $# > 2 ? 2 : $# ))
[ $# -gt 0 ] || set -- tools list --json
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/state"
printf '{"tools":{"profile":"coding"},"gateway":{"port":18789}}\n' > "$work/state/openclaw.json"
HOME="$work" OPENCLAW_STATE_DIR="$work/state" GODEBUG=inittrace=1 "$bin" "$@" >/dev/null 2>"$work/trace"

# init <pkg> @<t> ms, <clock> ms clock, <bytes> bytes, <allocs> allocs
awk -v top="$top" -v what="openclaw $*" '
$1 == "init" {
  pkg = $2; ms = $5; b = $8; a = $10
  n++; tb += b; ta += a; tc += ms
  # module: the standard library is one bucket, ours another; github.com,
  # codeberg.org and golang.org/x modules have three path elements, others two
  split(pkg, el, "/")
  if (el[1] !~ /\./ || el[1] == "vendor") mod = "(standard library)"
  else if (el[1] == "github.com" || el[1] == "codeberg.org" || el[1] == "golang.org") mod = el[1] "/" el[2] "/" el[3]
  else mod = el[1] "/" el[2]
  if (pkg ~ /^github.com\/openclaw-go\/openclaw/) mod = "github.com/openclaw-go/openclaw (ours)"
  mb[mod] += b; ma[mod] += a; mn[mod]++
  pb[pkg] = b; pa[pkg] = a; pc[pkg] = ms
}
END {
  printf "init of %d packages (%s): %d bytes, %d allocations, %.2f ms clock\n\n", n, what, tb, ta, tc
  printf "%-52s %6s %10s %8s\n", "by module", "pkgs", "bytes", "allocs"
  cmd = "sort -t\"\t\" -k3,3nr | head -" top
  for (m in mb) printf "%s\t%d\t%d\t%d\n", m, mn[m], mb[m], ma[m] | cmd
  close(cmd)
  printf "\n%-52s %6s %10s %8s\n", "by package", "ms", "bytes", "allocs"
  for (p in pb) printf "%s\t%s\t%d\t%d\n", p, pc[p], pb[p], pa[p] | cmd
  close(cmd)
}' "$work/trace" | awk -F'\t' 'NF == 4 { printf "%-52s %6s %10s %8s\n", $1, $2, $3, $4; next } { print }'
