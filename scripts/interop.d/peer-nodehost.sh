# Our node host (`openclaw node run`) against the ORIGINAL gateway: it pairs (the original CLI
# approves its command surface), answers system.which and system.run (invoked by the original
# CLI), and system.run goes through the exec approvals on the node (set by the original CLI with
# `approvals set --node`).
# Sourced by scripts/interop.sh: $work, $bin, $peer, $token, free_port, wait_ready, pids and the
# check helpers are defined there. This file starts an original gateway of its own (fresh state,
# so the pairing is a first one), since the one of section 2 is not running yet.

nh_port=$(free_port)
mkdir -p "$work/nh-gw" "$work/nh-node" "$work/nh-cli"
HOME="$work/nh-gw" "$peer" gateway run --allow-unconfigured --auth token --token "$token" --port "$nh_port" >"$work/nh-gw.log" 2>&1 &
pids+=($!)
if wait_ready "http://127.0.0.1:$nh_port/readyz" 90; then
  nh_url=ws://127.0.0.1:$nh_port
  # NP: the original CLI against that gateway (its own HOME); NJ: the same, printing the JSON
  # expression's value (for ids).
  NP() { HOME="$work/nh-cli" "$peer" "$@" --url "$nh_url" --token "$token" --json; }
  OPENCLAW_STATE_DIR="$work/nh-node" OPENCLAW_GATEWAY_TOKEN="$token" \
    "$bin" node run --host 127.0.0.1 --port "$nh_port" --display-name interop-node >"$work/nh-node.log" 2>&1 &
  nh_node_pid=$!
  pids+=($nh_node_pid)
  nh_rid=""
  for _ in $(seq 1 150); do
    nh_rid=$(NP nodes pending 2>/dev/null | python3 -c 'import json,sys
for x in json.load(sys.stdin):
    if x.get("displayName") == "interop-node": print(x["requestId"])' 2>/dev/null)
    [ -n "$nh_rid" ] && break
    sleep 0.2
  done
  nh_id=$(OPENCLAW_STATE_DIR="$work/nh-node" "$bin" node identity --query deviceId --raw 2>/dev/null)
  check "ours(node run) → peer: the node pairs on loopback; its command surface waits in nodes pending" \
    "any(x['requestId'] == '$nh_rid' and x['nodeId'] == '$nh_id' and x['clientId'] == 'node-host' and 'system.run' in x['commands'] and 'system.which' in x['commands'] for x in d)" \
    NP nodes pending
  check "ours(node run) → peer: nodes approve <requestId> (the original CLI)" \
    "d['requestId'] == '$nh_rid' and d['node']['nodeId'] == '$nh_id'" NP nodes approve "$nh_rid"
  check "ours(node run) → peer: nodes status shows it connected with its approved commands" \
    "any(n['nodeId'] == '$nh_id' and n['connected'] is True and n['paired'] is True and 'system.run' in n['commands'] and n['version'].startswith('2026.9.6') for n in d['nodes'])" \
    NP nodes status
  check "ours(node run) → peer: nodes invoke --command system.which" \
    "d['ok'] is True and d['payload']['bins'].get('sh', '').endswith('/sh') and 'no-such-bin-x' not in d['payload']['bins']" \
    NP nodes invoke --node interop-node --command system.which --params '{"bins":["sh","no-such-bin-x"]}'
  nh_inv() { # command params-json
    NP gateway call node.invoke --params "{\"nodeId\":\"$nh_id\",\"command\":\"$1\",\"params\":$2,\"idempotencyKey\":\"interop-$RANDOM$RANDOM\"}"; }
  check "ours(node run) → peer: system.run (node.invoke; the node's default approvals: full)" \
    "d['ok'] is True and d['payload']['exitCode'] == 0 and d['payload']['stdout'] == 'hello node\n' and d['payload']['success'] is True" \
    nh_inv system.run '{"command":["echo","hello node"]}'
  check "ours(node run) → peer: system.run exit code and timeout (124, timedOut)" \
    "d['ok'] is True and d['payload']['exitCode'] == 124 and d['payload']['timedOut'] is True" \
    nh_inv system.run '{"command":["sleep","20"],"timeoutMs":500}'
  printf '%s' '{"version":1,"defaults":{"security":"allowlist","ask":"off"},"agents":{"main":{"allowlist":[{"pattern":"/usr/bin/uname"}]}}}' >"$work/nh-approvals.json"
  check "ours(node run) → peer: approvals set --node (system.execApprovals.set on our node)" \
    "d['exists'] is True and d['file']['defaults']['security'] == 'allowlist'" \
    NP approvals set --node interop-node --file "$work/nh-approvals.json"
  check "ours(node run) → peer: approvals get --node (system.execApprovals.get)" \
    "d['file']['agents']['main']['allowlist'][0]['pattern'] == '/usr/bin/uname' and len(d['hash']) == 64" \
    NP approvals get --node interop-node
  check "ours(node run) → peer: an allowlisted system.run runs" \
    "d['ok'] is True and d['payload']['stdout'] == 'Linux\n'" nh_inv system.run '{"command":["/usr/bin/uname"]}'
  checkfail "ours(node run) → peer: an allowlist miss is SYSTEM_RUN_DENIED on the node" \
    "d['error']['details']['nodeError'] == {'code': 'SYSTEM_RUN_DENIED', 'message': 'SYSTEM_RUN_DENIED: allowlist miss'}" \
    nh_inv system.run '{"command":["echo","not allowed"]}'
  printf '%s' '{"version":1,"defaults":{"security":"allowlist","ask":"on-miss"}}' >"$work/nh-approvals.json"
  nh_hash=$(NP approvals get --node interop-node 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["hash"])' 2>/dev/null)
  NP approvals set --node interop-node --file "$work/nh-approvals.json" >/dev/null 2>&1
  checkfail "ours(node run) → peer: ask on-miss: approval required (SYSTEM_RUN_DENIED)" \
    "d['error']['details']['nodeError']['message'] == 'SYSTEM_RUN_DENIED: approval required'" \
    nh_inv system.run '{"command":["echo","ask me"]}'
  check "ours(node run) → peer: system.run.prepare pins the executable for the approval" \
    "d['ok'] is True and d['payload']['plan']['argv'][0].endswith('/echo') and d['payload']['execPolicy'] == {'security': 'allowlist', 'ask': 'on-miss'}" \
    nh_inv system.run.prepare '{"command":["echo","ask me"]}'
  checkfail "ours(node run) → peer: camera.snap is not a headless node's command" \
    "'camera.snap' in d['error']['message']" NP nodes invoke --node interop-node --command camera.snap --params '{}'
  check "ours(node run) → peer: our node status says connected" \
    "d['running'] is True and d['status']['connected'] is True and d['deviceId'] == '$nh_id'" \
    env OPENCLAW_STATE_DIR="$work/nh-node" "$bin" node status --json
  checktext "ours(node run) → peer: the node host's log has no unknown-method failures" \
    "'node host gateway connected' in t and 'unknown method' not in t" cat "$work/nh-node.log"
  kill "$nh_node_pid" 2>/dev/null
  wait "$nh_node_pid" 2>/dev/null
else
  rows+=("| ours(node run) → peer: original gateway start | FAIL (not ready in 90 s) |"); fail=$((fail + 1))
  tail -20 "$work/nh-gw.log" >&2
fi
