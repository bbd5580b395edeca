#!/usr/bin/env bash
# Runs every fuzz target in the module for a short while each.
# Usage: scripts/fuzz.sh [duration, default 20s]
set -euo pipefail
d=${1:-20s}
cd "$(dirname "$0")/.."
grep -rl --include='*_test.go' '^func Fuzz' . | while read -r f; do
  pkg=./$(dirname "${f#./}")
  for t in $(grep -o '^func Fuzz[A-Za-z0-9_]*' "$f" | sed 's/^func //'); do
    echo "== $pkg $t ($d)"
    go test "$pkg" -run '^$' -fuzz "^$t\$" -fuzztime "$d" -fuzzminimizetime 3s
  done
done
