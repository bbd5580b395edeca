#!/bin/sh
# Regenerates chromium.pdf from chromium.html with headless Chromium's
# print-to-pdf (Skia: Type0/Identity-H fonts with /ToUnicode maps, as every
# PDF Chromium prints). Needs /usr/bin/chromium and CJK fonts
# (fonts-noto-cjk); the PDF is committed so the tests need neither.
set -eu
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chromium --headless --no-sandbox --disable-gpu --user-data-dir="$tmp" \
	--no-pdf-header-footer --print-to-pdf="$tmp/out.pdf" "file://$PWD/chromium.html" 2>/dev/null
mv "$tmp/out.pdf" chromium.pdf
