# Agents and sessions (issue 22): the original CLI's `agent --message` against our gateway
# with a local model server configured, `gateway call chat.history / sessions.list / status`,
# `skills list`, `sessions cleanup` (delegated to the gateway) and `chat.send`.
# Sourced by scripts/interop.sh: $work, $bin, $token, P, free_port, wait_ready and the check
# helpers are defined there. This file starts its own gateway of ours (a config with a model)
# and a local chat-completions server; both are killed by interop.sh's cleanup ($pids).
mport=$(free_port)
cat >"$work/sess-model.py" <<'PY'
import json, sys
from http.server import BaseHTTPRequestHandler, HTTPServer
class H(BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        body = json.dumps({"model": "m1", "choices": [{"message": {"role": "assistant", "content": "pong from the local model"},
                           "finish_reason": "stop"}], "usage": {"prompt_tokens": 5, "completion_tokens": 4}}).encode()
        self.send_response(200); self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)
    def log_message(self, *a): pass
HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
python3 "$work/sess-model.py" "$mport" &
pids+=($!)
mkdir -p "$work/sess"
cat >"$work/sess/openclaw.json" <<JSON
{"models":{"providers":{"loc":{"baseUrl":"http://127.0.0.1:$mport/v1","apiKey":"k","api":"openai-completions","models":[{"id":"m1","name":"m1"}]}}},
 "agents":{"defaults":{"model":"loc/m1"}}}
JSON
sport=$(free_port)
OPENCLAW_STATE_DIR="$work/sess" OPENCLAW_CONFIG_PATH="$work/sess/openclaw.json" "$bin" serve --port "$sport" --auth token --token "$token" >"$work/sess.log" 2>&1 &
pids+=($!)
if wait_ready "http://127.0.0.1:$sport/readyz" 10; then
  surl=ws://127.0.0.1:$sport
  S() { env OPENCLAW_GATEWAY_URL="$surl" OPENCLAW_GATEWAY_TOKEN="$token" HOME="$work/peerhome" "$peer" "$@"; }
  SG() { P gateway call "$1" --url "$surl" --token "$token" --json --params "$2"; }
  check "peer: agent --message (agent: accepted, then the final on the same request)" \
    'd["status"] == "ok" and d["result"]["payloads"][0]["text"] == "pong from the local model" and d["sessionKey"] == "agent:main:main"' \
    S agent --message ping --agent main --json
  check "peer: gateway call chat.history (the turn's transcript)" \
    '[m["role"] for m in d["messages"]] == ["user", "assistant"] and d["messages"][1]["content"][0]["text"] == "pong from the local model"' \
    SG chat.history '{"sessionKey":"agent:main:main"}'
  check "peer: gateway call sessions.list (rows with key)" \
    'd["count"] == 1 and d["sessions"][0]["key"] == "agent:main:main" and d["defaults"]["model"] == "loc/m1"' SG sessions.list '{}'
  check "peer: gateway call status (sessions.count and byAgent from the store)" \
    'd["sessions"]["count"] == 1 and d["sessions"]["byAgent"][0]["agentId"] == "main" and d["sessions"]["byAgent"][0]["count"] == 1' \
    SG status '{}'
  check "peer: gateway call sessions.patch (label)" 'd["ok"] is True and d["entry"]["label"] == "interop"' \
    SG sessions.patch '{"key":"agent:main:main","label":"interop"}'
  check "peer: gateway call chat.send (started at once)" 'd["status"] == "started" and d["runId"]' \
    SG chat.send '{"sessionKey":"agent:main:main","message":"again","idempotencyKey":"interop-1"}'
  check "peer: skills list --json (skills.status; no skills is valid)" \
    'd["skills"] == [] and d["workspaceDir"].endswith("/workspace")' S skills list --json
  check "peer: sessions cleanup --enforce --json (delegated to sessions.cleanup)" \
    'd["mode"] == "enforce" and d["applied"] is True and d["agentId"] == "main" and d["beforeCount"] == 1' \
    S sessions cleanup --enforce --json
  # The original's `sessions` reads its own local store, never a gateway: against ours it
  # does not list our session (labelled "interop" above; `gateway call sessions.list` has it).
  # Its own store may hold sessions the original's other commands wrote in earlier rows.
  check "peer: sessions --json reads the original's local store, not the gateway" \
    'd["path"].startswith("'"$work"'/peerhome") and not any(s.get("label") == "interop" for s in d["sessions"])' S sessions --json
else
  rows+=("| peer: sessions family gateway | FAIL (did not start) |"); fail=$((fail + 1))
  cat "$work/sess.log" >&2
fi
