#!/usr/bin/env bash
# Installs the third-party MCP servers the MCP client tests run against
# (npm @modelcontextprotocol/server-everything and server-filesystem, pinned)
# into ${OPENCLAW_MCP_SERVERS_DIR:-$HOME/.cache/openclaw-mcp-servers}, outside
# the repository. Needs node and npm (Node 20 is enough). Safe to run again:
# it skips what is there. .ci/run calls it; the tests call it too when the
# servers are missing and npm is on the PATH.
set -euo pipefail
DIR=${OPENCLAW_MCP_SERVERS_DIR:-$HOME/.cache/openclaw-mcp-servers}
VERSION=2026.8.31
BIN="$DIR/node_modules/.bin"
if [ -x "$BIN/mcp-server-everything" ] && [ -x "$BIN/mcp-server-filesystem" ] &&
  grep -q "\"version\": \"$VERSION\"" "$DIR/node_modules/@modelcontextprotocol/server-everything/package.json" 2>/dev/null; then
  exit 0
fi
mkdir -p "$(dirname "$DIR")"
TMP=$(mktemp -d "$DIR.tmp.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
# --ignore-scripts: no install script may fetch anything from outside the registry
(cd "$TMP" && npm install --no-save --no-audit --no-fund --ignore-scripts --loglevel=error \
  "@modelcontextprotocol/server-everything@$VERSION" "@modelcontextprotocol/server-filesystem@$VERSION" >/dev/null)
rm -rf "$DIR.old"
[ -d "$DIR" ] && mv "$DIR" "$DIR.old"
mv "$TMP" "$DIR"
rm -rf "$DIR.old"
trap - EXIT
echo "MCP test servers installed in $DIR"
