# Nodes: the original node host (`openclaw node run`) against our gateway.
# Sourced by scripts/interop.sh: $url, $token, $work, $bin, $peer, P and the check helpers are defined there.
#
# The original node host pairs on loopback (its device silently), its command surface waits for
# `openclaw nodes approve` (ours), then our CLI reaches it with node.invoke, and the original CLI's
# nodes status / nodes list / devices list read our gateway. Its log must not say "unknown method".

node_port=${url##*:}
# tools.profile may be coding by now, which has no nodes tool (nor exec for nodes run): alsoAllow
# adds both without touching the profile, keeping entries other families added.
nparams=$(P gateway call config.get --url "$url" --token "$token" --json 2>/dev/null | python3 -c '
import json, sys
cur = json.load(sys.stdin)
also = list((cur.get("config") or {}).get("tools", {}).get("alsoAllow") or [])
for t in ("nodes", "exec"):
    if t not in also:
        also.append(t)
print(json.dumps({"raw": json.dumps({"tools": {"alsoAllow": also}}), "baseHash": cur["hash"], "replacePaths": ["tools.alsoAllow"]}))')
check "peer: config.patch tools.alsoAllow nodes (the coding profile has no nodes tool)" \
  'd.get("ok") is True and "nodes" in d["config"]["tools"]["alsoAllow"]' \
  P gateway call config.patch --url "$url" --token "$token" --json --params "$nparams"
mkdir -p "$work/peernode"
HOME="$work/peernode" OPENCLAW_GATEWAY_TOKEN="$token" "$peer" node run --host 127.0.0.1 --port "$node_port" \
  --display-name interop-node >"$work/peernode.log" 2>&1 &
node_pid=$!
pids+=($node_pid)
O() { "$bin" "$@" --url "$url" --token "$token"; }
node_req=""
for _ in $(seq 1 900); do # the original node host takes 10-30 s to start
  node_req=$(O nodes pending --json 2>/dev/null | python3 -c '
import json,sys
d=json.load(sys.stdin)["details"]
print(next((p["requestId"] for p in d["pending"] if p.get("displayName")=="interop-node"), ""))' 2>/dev/null)
  [ -n "$node_req" ] && break
  sleep 0.1
done
check "peer node host → ours: its command surface waits in nodes pending (system.run needs operator.admin)" \
  "any(p['requestId'] == '$node_req' and 'system.which' in p['commands'] and p['requiredApproveScopes'] == ['operator.pairing', 'operator.admin'] for p in d['details']['pending'])" \
  O nodes pending --json
check "peer node host → ours: nodes approve <requestId> (ours)" \
  "d['details']['node']['displayName'] == 'interop-node' and 'system.which' in d['details']['node']['commands']" \
  O nodes approve "$node_req" --json
check "peer node host → ours: nodes invoke --command system.which reaches it" \
  'd["details"]["ok"] is True and d["details"]["payload"]["bins"]["sh"].endswith("/sh")' \
  O nodes invoke --node interop-node --command system.which --tool-params '{"bins":["sh"]}' --json
check "peer node host → ours: nodes status --json shows it connected and approved" \
  'any(n["displayName"] == "interop-node" and n["connected"] is True and n["approvalState"] == "approved" and "system.run" in n["commands"] for n in d["details"]["nodes"])' \
  O nodes status --json
check "peer node host → ours: nodes describe shows its host stats (node.event node.host.stats)" \
  'd["details"]["hostStats"]["cpuCount"] >= 1 and isinstance(d["details"]["nodePluginTools"], list)' \
  O nodes describe --node interop --json
check "peer node host → ours: nodes run (exec host=node: system.run.prepare, then system.run)" \
  'd["details"]["stdout"] == "interop\n" and d["details"]["exitCode"] == 0' \
  "$bin" nodes run --node interop-node --url "$url" --token "$token" --json -- echo interop
check "original CLI → ours: nodes status" \
  'any(n.get("displayName") == "interop-node" and n.get("connected") is True and n.get("paired") is True for n in d["nodes"])' \
  P nodes status --url "$url" --token "$token" --json
check "original CLI → ours: nodes list" \
  'any(n.get("displayName") == "interop-node" for n in d["paired"])' \
  P nodes list --url "$url" --token "$token" --json
check "original CLI → ours: devices list shows the node host's device (role node)" \
  'any("node" in x["roles"] and x.get("displayName") == "interop-node" for x in d["paired"])' \
  P devices list --url "$url" --token "$token" --json
check "original CLI → ours: nodes invoke system.which" \
  'd["ok"] is True and "sh" in d["payload"]["bins"]' \
  P nodes invoke --node interop-node --command system.which --params '{"bins":["sh"]}' --url "$url" --token "$token" --json
check "ours → peer node host: approvals get --node (exec.approvals.node.get → its system.execApprovals.get)" \
  'd["hash"] and isinstance(d["file"], dict)' O approvals get --node interop-node --json
check "ours → peer node host: approvals set --node --defaults --ask off (compare-and-set on the node's file)" \
  'd["file"]["defaults"]["ask"] == "off"' O approvals set --node interop-node --defaults --ask off --json
# The node's own approvals asking (allowlist, on-miss): nodes run is held for an operator (exit 8),
# and once allowed runs on the node as a task, bound to the approval (its systemRunPlan).
O approvals set --node interop-node --defaults --security allowlist --ask on-miss --json >/dev/null 2>&1
held=$("$bin" nodes run --node interop-node --url "$url" --token "$token" --json -- /usr/bin/uname -n 2>/dev/null)
held_id=$(printf '%s' "$held" | python3 -c 'import json,sys; print(json.load(sys.stdin)["error"]["details"]["approvalId"])' 2>/dev/null)
check "peer node host → ours: nodes run held when the node's approvals ask (PENDING_APPROVAL)" \
  'd["error"]["code"] == "PENDING_APPROVAL" and d["error"]["details"]["host"] == "node"' printf '%s' "$held"
check "peer node host → ours: approvals resolve allow-once runs it on the node" \
  'd["approval"]["execution"]["status"] == "running"' O approvals resolve "$held_id" allow-once --json
for _ in $(seq 1 100); do
  O tasks list --json 2>/dev/null | grep -q '"status":"running"' || break
  sleep 0.1
done
check "peer node host → ours: the approved run finished on the node (tasks list)" \
  'any(t["status"] == "ok" and ((t.get("result") or {}).get("details") or {}).get("host") == "node" and t["result"]["details"].get("exitCode") == 0 for t in d["tasks"])' \
  O tasks list --json
checktext "peer node host → ours: its log has no unknown method and no publish failure" \
  '"gateway connected" in t and "unknown method" not in t and "publish failed" not in t' cat "$work/peernode.log"
kill "$node_pid" 2>/dev/null
