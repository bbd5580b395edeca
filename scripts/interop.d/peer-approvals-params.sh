# Params and fields the original validates or carries, on exec approvals and agents.list:
# the original CLI against our gateway (state in $work/ours).
# Sourced by scripts/interop.sh: $url, $token, $work, P and the check helpers are defined there.

# The original's approval methods take closed objects: an unknown property is refused, in its words.
checkfail "peer: exec.approval.get with an unknown param refused" \
  'd["error"]["message"] == "invalid exec.approval.get params: at root: unexpected property '"'"'bogus'"'"'"' \
  P gateway call exec.approval.get --url "$url" --token "$token" --json --params '{"id":"x","bogus":1}'
checkfail "peer: exec.approval.request with an unknown param refused" \
  'd["error"]["message"] == "invalid exec.approval.request params: at root: unexpected property '"'"'bogus'"'"'"' \
  P gateway call exec.approval.request --url "$url" --token "$token" --json --params '{"command":"ls","bogus":1}'
checkfail "peer: exec.approval.resolve with an unknown param refused" \
  'd["error"]["message"] == "invalid exec.approval.resolve params: at root: unexpected property '"'"'bogus'"'"'"' \
  P gateway call exec.approval.resolve --url "$url" --token "$token" --json --params '{"id":"x","decision":"deny","bogus":1}'
checkfail "peer: exec.approvals.set with an unknown param refused" \
  'd["error"]["message"] == "invalid exec.approvals.set params: at root: unexpected property '"'"'bogus'"'"'"' \
  P gateway call exec.approvals.set --url "$url" --token "$token" --json --params '{"file":{"version":1},"bogus":1}'
check "peer: exec.approvals.get carries resolvedDefaults" \
  'd["resolvedDefaults"] == {"security": "full", "ask": "off", "askFallback": "deny", "autoAllowSkills": False}' \
  P gateway call exec.approvals.get --url "$url" --token "$token" --json

# agents.list rows: workspace, model {primary, fallbacks} and thinkingDefault from the config
# (set here, removed after, so the families after us see the config as they found it).
ahash=$(P gateway call config.get --url "$url" --token "$token" --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["hash"])')
P gateway call config.patch --url "$url" --token "$token" --json \
  --params "{\"raw\":\"{agents:{defaults:{model:{primary:'anthropic/claude-sonnet-4-5',fallbacks:['openai/gpt-4o']},thinkingDefault:'low'}}}\",\"baseHash\":\"$ahash\"}" >/dev/null 2>&1
check "peer: agents.list rows carry workspace, model and thinkingDefault" \
  'd["defaultId"] == "main" and d["agents"][0]["id"] == "main" and d["agents"][0]["workspace"] != "" and d["agents"][0]["model"] == {"primary": "anthropic/claude-sonnet-4-5", "fallbacks": ["openai/gpt-4o"]} and d["agents"][0]["thinkingDefault"] == "low"' \
  P gateway call agents.list --url "$url" --token "$token" --json
ahash=$(P gateway call config.get --url "$url" --token "$token" --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["hash"])')
P gateway call config.patch --url "$url" --token "$token" --json \
  --params "{\"raw\":\"{agents:{defaults:{model:null,thinkingDefault:null}}}\",\"baseHash\":\"$ahash\"}" >/dev/null 2>&1
