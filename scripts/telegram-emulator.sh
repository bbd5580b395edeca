#!/usr/bin/env bash
# Installs the Telegram Bot API emulator the channel tests run against
# (npm package telegram-test-api, pinned) into a cache directory outside the
# repository, once, and prints that directory. The tests call it themselves;
# .ci/run may call it ahead. Needs node and npm.
set -euo pipefail
ver=4.2.1
dir="${OPENCLAW_TG_EMULATOR_DIR:-$HOME/.cache/openclaw-tg-emulator}"
pkg="$dir/node_modules/telegram-test-api/package.json"
if [ ! -f "$pkg" ] || ! grep -q "\"version\": \"$ver\"" "$pkg"; then
  command -v npm >/dev/null 2>&1 || { echo "telegram-emulator: npm not found: install Node.js and npm (Debian: apt-get install nodejs npm)" >&2; exit 1; }
  mkdir -p "$dir"
  (cd "$dir" && npm install --no-audit --no-fund --silent --ignore-scripts "telegram-test-api@$ver" >/dev/null)
fi
echo "$dir"
