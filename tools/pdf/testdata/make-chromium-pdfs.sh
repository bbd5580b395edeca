#!/bin/sh
# Regenerates chromium.pdf (chromium --headless --print-to-pdf) and
# browser-pdf.pdf (openclaw browser pdf, CDP Page.printToPDF) from
# chromium.html. Both are Skia PDFs: Type0/Identity-H and Type3 fonts whose
# text is only in /ToUnicode maps. Needs /usr/bin/chromium, CJK fonts
# (fonts-noto-cjk), python3 and, for the second, openclaw on PATH; the PDFs
# are committed so the tests need none of them.
set -eu
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'kill $srv 2>/dev/null || true; OPENCLAW_STATE_DIR=$tmp openclaw browser stop >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
srv=
chromium --headless --no-sandbox --disable-gpu --user-data-dir="$tmp/chromium" \
	--no-pdf-header-footer --print-to-pdf="$tmp/out.pdf" "file://$PWD/chromium.html" 2>/dev/null
mv "$tmp/out.pdf" chromium.pdf

command -v openclaw >/dev/null || { echo "openclaw not on PATH: browser-pdf.pdf not regenerated" >&2; exit 0; }
python3 -m http.server -b 127.0.0.1 18955 >/dev/null 2>&1 &
srv=$!
sleep 1
export OPENCLAW_STATE_DIR="$tmp"
echo '{"browser":{"headless":true,"noSandbox":true,"ssrfPolicy":{"allowedHostnames":["127.0.0.1"]}}}' >"$tmp/openclaw.json"
openclaw browser start >/dev/null
openclaw browser open http://127.0.0.1:18955/chromium.html >/dev/null
cp "$(openclaw browser pdf --query details.path --raw)" browser-pdf.pdf
