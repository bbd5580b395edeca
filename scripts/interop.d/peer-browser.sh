# The original CLI's `openclaw browser …` against our gateway. Each verb of the original
# sends one browser.request {method, path, query?, body?, timeoutMs} naming a route of its
# browser control API (GET /, POST /start, POST /tabs/open, GET /snapshot, POST /act, ...);
# ours runs the matching browser action on real Chromium and answers the route's JSON.
# Sourced by scripts/interop.sh: $url, $token, $work, $bin, P, free_port, wait_ready, check*.

bport=$(free_port)
mkdir -p "$work/bpages"
cat >"$work/bpages/index.html" <<'EOF'
<!doctype html>
<title>Interop page</title>
<h1>Interop</h1>
<button id=b onclick="this.textContent = 'Clicked'">Press me</button>
EOF
(cd "$work/bpages" && exec python3 -m http.server --bind 127.0.0.1 "$bport") >/dev/null 2>&1 &
pids+=($!)
wait_ready "http://127.0.0.1:$bport/index.html" 10 || echo "browser test page server did not start" >&2

# Our gateway's browser: headless, noSandbox as root, private network allowed for the
# local page, a free CDP port. The tool policy (tools.profile may be coding by now)
# must let the browser tool run: alsoAllow adds it without touching the profile, keeping
# entries other families added (replacePaths names the array, as the original requires).
bns=false
[ "$(id -u)" = 0 ] && bns=true
bparams=$(P gateway call config.get --url "$url" --token "$token" --json 2>/dev/null | python3 -c '
import json, sys
cur = json.load(sys.stdin)
also = list((cur.get("config") or {}).get("tools", {}).get("alsoAllow") or [])
if "browser" not in also:
    also.append("browser")
raw = {"browser": {"headless": True, "noSandbox": sys.argv[1] == "true",
                   "ssrfPolicy": {"dangerouslyAllowPrivateNetwork": True},
                   "profiles": {"openclaw": {"cdpPort": int(sys.argv[2])}}},
       "tools": {"alsoAllow": also}}
print(json.dumps({"raw": json.dumps(raw), "baseHash": cur["hash"], "replacePaths": ["tools.alsoAllow"]}))' "$bns" "$(free_port)")
check "peer: config.patch browser section (headless, local page allowed)" \
  'd.get("ok") is True and d["config"]["browser"]["headless"] is True and "browser" in d["config"]["tools"]["alsoAllow"]' \
  P gateway call config.patch --url "$url" --token "$token" --json --params "$bparams"

B() { P browser --url "$url" --token "$token" "$@"; }
check "peer: browser status (browser.request GET /)" \
  'd["profile"] == "openclaw" and d["enabled"] is True and d["transport"] == "cdp" and d["running"] is False and d["color"] == "#FF4500"' B --json status
checktext "peer: browser start (POST /start, then GET /)" '"browser [openclaw] running: true" in t' B start
check "peer: browser open <local page> (POST /tabs/open)" \
  'd["url"] == "http://127.0.0.1:'"$bport"'/index.html" and len(d["targetId"]) > 0' B --json open "http://127.0.0.1:$bport/index.html"
checktext "peer: browser tab (POST /tabs/action {action:list})" '"Interop page" in t and "/index.html" in t and "id: " in t' B tab
checktext "peer: browser snapshot (GET /snapshot)" '"- heading \"Interop\" [level=1] [ref=" in t and "- button \"Press me\" [ref=" in t' B snapshot
bref=$(B --json snapshot 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin); print(next(k for k,v in d["refs"].items() if v["role"] == "button"))' 2>/dev/null)
checktext "peer: browser click <ref> (POST /act {kind:click})" '"clicked ref '"$bref"' on http://127.0.0.1:" in t' B click "$bref"
check "peer: the click changed the page (POST /act {kind:evaluate})" 'd == "Clicked"' \
  B evaluate --fn '() => document.getElementById("b").textContent'
checktext "peer: browser click <ref> --modifiers Shift --button middle (POST /act {modifiers, button})" \
  '"clicked ref '"$bref"' on http://127.0.0.1:" in t' B click "$bref" --modifiers Shift --button middle
# Labels: open --label, then the label works as a targetId.
check "peer: browser open <page> --label (POST /tabs/open {url,label})" \
  'd["label"] == "interop" and d["suggestedTargetId"] == "interop" and d["tabId"].startswith("t")' \
  B --json open "http://127.0.0.1:$bport/index.html" --label interop
checktext "peer: browser snapshot --target-id <label> (GET /snapshot?targetId=interop)" '"- button \"Press me\" [ref=" in t' \
  B snapshot --target-id interop
# State routes: cookies and Web Storage of the local page's origin.
checktext "peer: browser cookies set <name> <value> --url (POST /cookies/set {cookie})" '"cookie set: sid" in t' \
  B cookies set sid interop-v4lue --url "http://127.0.0.1:$bport/"
check "peer: browser cookies (GET /cookies)" \
  'any(c["name"] == "sid" and c["value"] == "interop-v4lue" and c["domain"] == "127.0.0.1" for c in (d if isinstance(d, list) else d["cookies"]))' \
  B --json cookies
check "peer: the cookie reached the page (document.cookie)" 'd == "sid=interop-v4lue"' B evaluate --fn '() => document.cookie'
checktext "peer: browser cookies clear (POST /cookies/clear)" '"cookies cleared" in t' B cookies clear
checktext "peer: browser storage local set <key> <value> (POST /storage/local/set)" '"localStorage set: k" in t' B storage local set k v1
check "peer: browser storage local get (GET /storage/local)" 'd == {"k": "v1"} or d.get("values") == {"k": "v1"}' \
  B --json storage local get
# A route we do not serve answers the original's 404 shape; its doctor reports it and fails.
checkfail "peer: browser doctor → unknown route GET /doctor (INVALID_REQUEST, Not Found)" \
  'd["ok"] is False and d["checks"][0]["name"] == "gateway" and "Not Found: no browser route GET /doctor" in d["checks"][0]["detail"]' \
  B --json doctor
checktext "peer: browser stop (POST /stop)" '"browser [openclaw] running: false" in t' B stop
# Whatever failed above, leave no Chromium behind (it is detached from the gateway).
OPENCLAW_STATE_DIR="$work/ours" "$bin" browser stop >/dev/null 2>&1
