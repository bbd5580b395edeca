#!/bin/sh
# Re-check the ARITHMETIC_BASE mutants a gremlins log counts KILLED, for logs
# made before scripts/mutate/go classified build failures (`"a" - "b"`) as
# NOT VIABLE: each one is applied through `go build -overlay` (no tests) and
# printed NOT VIABLE when it does not compile, VIABLE when it does.
# usage: scripts/mutate/recheck-viable.sh <package dir> <gremlins log>
set -eu
dir=$1
log=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
grep -E 'KILLED ARITHMETIC_BASE at ' "$log" | sed -E 's/.* at ([^:]+):([0-9]+):([0-9]+).*/\1 \2 \3/' |
	while read -r f line col; do
		src=$(cd "$dir" && pwd)/$f
		awk -v L="$line" -v C="$col" 'NR==L { c=substr($0,C,1); m=(c=="+")?"-":(c=="-")?"+":(c=="*")?"/":(c=="/")?"*":(c=="%")?"*":c; $0=substr($0,1,C-1) m substr($0,C+1) } { print }' "$src" >"$tmp/m.go"
		printf '{"Replace":{"%s":"%s"}}' "$src" "$tmp/m.go" >"$tmp/o.json"
		if go build -overlay "$tmp/o.json" -o /dev/null "./$dir" >/dev/null 2>&1; then
			echo "VIABLE $f:$line:$col"
		else
			echo "NOT VIABLE $f:$line:$col"
		fi
	done
