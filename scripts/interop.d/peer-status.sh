# `openclaw status`, tasks.cancel and `secrets reload`: the original CLI against our gateway.
# Sourced by scripts/interop.sh: $url, $token, $work, $peer and the check helpers are defined there.
#
# The original CLI's `status` skips the gateway probe on a cold start (no openclaw.json in its
# HOME: it then reports reachable false and empty sessions without connecting), so these rows
# run it with a HOME of its own holding an empty config, and the gateway from the environment.
mkdir -p "$work/peerstatus/.openclaw"
[ -e "$work/peerstatus/.openclaw/openclaw.json" ] || echo '{}' >"$work/peerstatus/.openclaw/openclaw.json"
PS() { HOME="$work/peerstatus" OPENCLAW_GATEWAY_URL="$url" OPENCLAW_GATEWAY_TOKEN="$token" "$peer" "$@"; }

check "peer: status --json (gateway reachable, sessions.byAgent and heartbeat.agents from ours)" \
  'd["gateway"]["reachable"] is True and [a["agentId"] for a in d["sessions"]["byAgent"]] == ["main"] and d["heartbeat"]["agents"][0]["agentId"] == "main" and d["tasks"]["total"] >= 0 and d["runtimeVersion"]' \
  PS status --json
checktext "peer: status (text) shows the gateway reachable and the agent's sessions" \
  '"reachable" in t and "Sessions" in t and "Cannot read properties" not in t' PS status
check "peer: gateway call tasks.cancel of an unknown id ({found:false, cancelled:false, reason})" \
  'd == {"found": False, "cancelled": False, "reason": "Task not found."}' \
  P gateway call tasks.cancel --params '{"taskId":"no-such-task"}' --url "$url" --token "$token" --json
check "peer: secrets reload ({ok, warningCount})" 'd == {"ok": True, "warningCount": 0}' \
  P secrets reload --url "$url" --token "$token" --json
