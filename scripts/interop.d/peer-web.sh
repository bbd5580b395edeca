# Web family: the original CLI's `gateway call tools.invoke` of web_fetch and
# `gateway call models.list` against our gateway (sourced by scripts/interop.sh;
# sees $url, $token, $work, P and the check helpers).

# A local page to fetch, on a free loopback port.
mkdir -p "$work/webpages"
cat >"$work/webpages/index.html" <<'HTML'
<!doctype html><html><head><title>Interop page</title></head><body><nav><a href="/">Home</a></nav>
<article><h1>Interop page</h1><p>The original CLI asked our gateway to fetch this page, and web_fetch
extracted it through readability into Markdown for the caller, as the original's gateway would.</p>
<p>A second paragraph, with enough words, commas and clauses in it for the readability scorer to
treat it as the content of the page rather than as navigation.</p></article></body></html>
HTML
wport=$(free_port)
python3 -m http.server "$wport" --bind 127.0.0.1 --directory "$work/webpages" >/dev/null 2>&1 &
pids+=($!)
wait_ready "http://127.0.0.1:$wport/" 10 || echo "web interop: the page server did not start" >&2
wurl="http://127.0.0.1:$wport/"

# wpatch RAW: config.patch with the current base hash. Arrays other families set (tools.alsoAllow)
# are kept and extended, and named in replacePaths as the original requires.
wpatch() {
  local params
  params=$(P gateway call config.get --url "$url" --token "$token" --json 2>/dev/null | python3 -c '
import json, sys
cur = json.load(sys.stdin)
also = list((cur.get("config") or {}).get("tools", {}).get("alsoAllow") or [])
if "web_fetch" not in also:
    also.append("web_fetch")
raw = json.loads(sys.argv[1])
raw.setdefault("tools", {})["alsoAllow"] = also
print(json.dumps({"raw": json.dumps(raw), "baseHash": cur["hash"], "replacePaths": ["tools.alsoAllow"]}))' "$1")
  P gateway call config.patch --url "$url" --token "$token" --json --params "$params"
}

# Allow web_fetch (the coding profile set above leaves it out) and configure two model providers.
check "peer: config.patch allows web_fetch and adds model providers" \
  'd.get("ok") is True and "web_fetch" in d["config"]["tools"]["alsoAllow"] and "local" in d["config"]["models"]["providers"]' \
  wpatch '{"models":{"providers":{"local":{"baseUrl":"http://127.0.0.1:11434/v1","api":"openai-completions","models":[{"id":"llama3","name":"Llama 3","contextWindow":8192,"reasoning":false}]},"remote":{"baseUrl":"https://llm.example.com/v1","models":[{"id":"big"}]}}}}'

# Before the private-network allowance the SSRF guard refuses the loopback page and names the rule and the fix.
check "peer: tools.invoke web_fetch of a loopback page refused by the SSRF guard" \
  'd["ok"] is False and d["error"]["code"] == "DENIED" and "loopback 127.0.0.0/8" in d["error"]["message"] and "tools.web.fetch.ssrfPolicy.allowedHostnames" in d["error"]["message"]' \
  P gateway call tools.invoke --url "$url" --token "$token" --json --params "{\"name\":\"web_fetch\",\"args\":{\"url\":\"$wurl\"}}"

check "peer: config.patch allows 127.0.0.1 in tools.web.fetch.ssrfPolicy" \
  'd.get("ok") is True and d["config"]["tools"]["web"]["fetch"]["ssrfPolicy"]["allowedHostnames"] == ["127.0.0.1"]' \
  wpatch '{"tools":{"web":{"fetch":{"ssrfPolicy":{"allowedHostnames":["127.0.0.1"]}}}}}'

check "peer: tools.invoke web_fetch of the allowed page (readability → Markdown)" \
  'd["ok"] is True and d["toolName"] == "web_fetch" and d["output"]["details"]["extractor"] == "readability" and d["output"]["details"]["status"] == 200 and "Interop page" in d["output"]["details"]["title"] and "extracted it through readability" in d["output"]["details"]["text"] and "EXTERNAL_UNTRUSTED_CONTENT" in d["output"]["details"]["text"]' \
  P gateway call tools.invoke --url "$url" --token "$token" --json --params "{\"name\":\"web_fetch\",\"args\":{\"url\":\"$wurl\",\"maxChars\":5000}}"

check "peer: gateway call models.list lists models.providers.* (original's row shape)" \
  'd["models"] == [{"id":"llama3","name":"Llama 3","provider":"local","contextWindow":8192,"reasoning":False,"available":True},{"id":"big","name":"big","provider":"remote","available":False,"unavailableReason":"missing-auth"}]' \
  P gateway call models.list --url "$url" --token "$token" --json

check "peer: models list shows the configured providers' models" \
  '[m["key"] for m in d["models"]] == ["local/llama3", "remote/big"] and d["models"][0]["contextWindow"] == 8192 and d["models"][0]["available"] is True and d["models"][1]["available"] is False' \
  env OPENCLAW_GATEWAY_URL="$url" OPENCLAW_GATEWAY_TOKEN="$token" HOME="$work/peerhome" "$peer" models list --json
