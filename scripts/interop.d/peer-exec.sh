# exec and exec approvals: the original CLI against our gateway (state in $work/ours).
# Sourced by scripts/interop.sh: $url, $token, $work, P and the check helpers are defined there.

check "peer: tools.invoke exec" 'd["ok"] is True and d["output"]["content"][0]["text"] == "peer-exec" and d["output"]["details"]["exitCode"] == 0' \
  P gateway call tools.invoke --url "$url" --token "$token" --json --params '{"name":"exec","args":{"command":"echo peer-exec"}}'
check "peer: approvals get --gateway (exec.approvals.get, no file yet)" 'd["exists"] is False and d["hash"].startswith("missing:") and "file" in d' \
  P approvals get --gateway --url "$url" --token "$token" --json
check "peer: approvals set --gateway --stdin (exec.approvals.set with its baseHash)" 'd["exists"] is True and d["file"]["defaults"]["ask"] == "always"' \
  sh -c 'echo "{\"version\":1,\"defaults\":{\"security\":\"full\",\"ask\":\"always\"}}" | HOME="$0/peerhome" "$1" approvals set --gateway --stdin --url "$2" --token "$3" --json' \
  "$work" "$peer" "$url" "$token"
check "peer: approvals get --gateway after set" 'd["exists"] is True and d["file"]["defaults"]["security"] == "full" and len(d["hash"]) == 64' \
  P approvals get --gateway --url "$url" --token "$token" --json

# ask=always: the exec is held as a pending approval, resolved by the original's `approvals resolve`.
P gateway call tools.invoke --url "$url" --token "$token" --json \
  --params '{"name":"exec","args":{"command":"echo peer-approved"}}' >"$work/exec-pending.json" 2>/dev/null
check "peer: tools.invoke exec needing approval → PENDING_APPROVAL" \
  'd["ok"] is False and d["error"]["code"] == "PENDING_APPROVAL" and d["error"]["details"]["approveCommand"].startswith("openclaw approvals resolve ")' \
  cat "$work/exec-pending.json"
approval_id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["error"]["details"]["approvalId"])' "$work/exec-pending.json" 2>/dev/null)
check "peer: approvals pending (exec.approval.list + plugin/openclaw lists)" \
  "any(a['id'] == '$approval_id' and a['kind'] == 'exec' and a['summary'] == 'echo peer-approved' for a in d['approvals'])" \
  P approvals pending --url "$url" --token "$token" --json
P approvals resolve "$approval_id" allow-once --url "$url" --token "$token" --json >"$work/exec-resolved.json" 2>/dev/null
check "peer: approvals resolve allow-once (approval.get + approval.resolve)" \
  'd["applied"] is True and d["approval"]["status"] == "allowed" and d["approval"]["decision"] == "allow-once"' \
  cat "$work/exec-resolved.json"
exec_session=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["approval"]["execution"]["sessionId"])' "$work/exec-resolved.json" 2>/dev/null)
check "peer: the approved command ran (tools.invoke process poll)" \
  'd["ok"] is True and d["output"]["details"]["status"] == "completed" and d["output"]["details"]["aggregated"] == "peer-approved\n"' \
  P gateway call tools.invoke --url "$url" --token "$token" --json \
  --params "{\"name\":\"process\",\"args\":{\"action\":\"poll\",\"sessionId\":\"$exec_session\",\"timeout\":10000}}"
check "peer: approvals resolve again → already resolved, same decision" \
  'd["applied"] is False and d["alreadyResolved"] is True and d["approval"]["decision"] == "allow-once"' \
  P approvals resolve "$approval_id" allow-once --url "$url" --token "$token" --json
# Leave the gateway as found for the families after us: no approvals policy.
check "peer: approvals set --gateway back to defaults" 'd["exists"] is True and "ask" not in d["file"].get("defaults", {})' \
  sh -c 'echo "{\"version\":1}" | HOME="$0/peerhome" "$1" approvals set --gateway --stdin --url "$2" --token "$3" --json' \
  "$work" "$peer" "$url" "$token"
