#!/usr/bin/env bash
# Runs every fuzz target in the module for a short while each, prints how
# many inputs each one ran, and fails a target that fuzzed nothing: one whose
# baseline (seed corpus and testdata/fuzz) never completed, or that ran no
# input beyond it. Go reports PASS for such a run, though nothing was fuzzed.
# Usage: scripts/fuzz.sh [duration, default 20s] [package dir ...]
#   scripts/fuzz.sh 20s ./mcpserve    only the targets under ./mcpserve
set -euo pipefail
d=${1:-20s}
shift || true
cd "$(dirname "$0")/.."
dirs=("$@")
[ ${#dirs[@]} -gt 0 ] || dirs=(.)

log=$(mktemp)
trap 'rm -f "$log"' EXIT
summary=()
failed=0
while read -r f; do
  pkg=./$(dirname "${f#./}")
  for t in $(grep -o '^func Fuzz[A-Za-z0-9_]*' "$f" | sed 's/^func //'); do
    echo "== $pkg $t ($d)"
    rc=0
    go test "$pkg" -run '^$' -fuzz "^$t\$" -fuzztime "$d" -fuzzminimizetime 3s 2>&1 | tee "$log" || rc=$?
    # The coordinator's lines: "gathering baseline coverage: a/B completed,
    # now fuzzing ..." once the baseline is done, then "execs: N (...)"
    # with N counting the baseline's B runs too.
    base=$(sed -n 's/.*gathering baseline coverage: [0-9]*\/\([0-9]*\) completed, now fuzzing.*/\1/p' "$log" | tail -1)
    execs=$(sed -n 's/.*, execs: \([0-9]*\) .*/\1/p' "$log" | tail -1)
    if [ "$rc" -ne 0 ]; then
      row="FAIL  $pkg $t: go test failed (exit $rc)"
    elif [ -z "$base" ]; then
      last=$(grep -o 'gathering baseline coverage: [0-9]*/[0-9]*' "$log" | tail -1 || true)
      row="FAIL  $pkg $t: the baseline never completed in $d (${last:-no progress line}); make each input cheaper"
      rc=1
    elif [ -z "$execs" ] || [ "$execs" -le "$base" ]; then
      row="FAIL  $pkg $t: ${execs:-0} execs, none beyond the baseline of $base"
      rc=1
    else
      row="ok    $pkg $t: $execs execs ($((execs - base)) beyond the baseline of $base)"
    fi
    [ "$rc" -eq 0 ] || failed=1
    summary+=("$row")
  done
done < <(grep -rl --include='*_test.go' '^func Fuzz' "${dirs[@]}" | sort)

echo
echo "== fuzz summary ($d each)"
printf '%s\n' "${summary[@]}"
exit "$failed"
