# Cron: the original CLI's `cron add/list/status/get/edit/enable/disable/run/runs/rm` and
# `system event --text` against our gateway (issue 21).
# Sourced by scripts/interop.sh: $url, $token, $work, $peer, P and the check helpers are defined there.
C() { P cron "$@" --url "$url" --token "$token"; }
jget() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }

check "peer: cron status (cron.status, operator.read)" 'd["enabled"] is True and isinstance(d["jobs"], int) and "nextWakeAtMs" in d' \
  C status --json
added=$(C add --name interop-ping --every 10m --system-event "ping from the original CLI" --json 2>/dev/null)
cron_id=$(printf '%s' "$added" | jget '["id"]' 2>/dev/null)
check "peer: cron add --every 10m --system-event (cron.add)" \
  'd["name"] == "interop-ping" and d["schedule"] == {"kind": "every", "everyMs": 600000, "anchorMs": d["createdAtMs"]} and d["sessionTarget"] == "main" and d["state"]["nextRunAtMs"] == d["createdAtMs"] + 600000' \
  printf '%s' "$added"
iso=$(C add --name interop-brief --cron "0 7 * * *" --tz Europe/Berlin --message "Summarize" --json 2>/dev/null)
iso_id=$(printf '%s' "$iso" | jget '["id"]' 2>/dev/null)
check "peer: cron add --cron --tz --message (isolated agentTurn, announce by default)" \
  'd["schedule"]["tz"] == "Europe/Berlin" and d["sessionTarget"] == "isolated" and d["payload"]["kind"] == "agentTurn" and d["delivery"]["mode"] == "announce"' \
  printf '%s' "$iso"
check "peer: cron add --cron '0 * * * *' gets the top-of-hour stagger (staggerMs 300000)" \
  'd["schedule"]["staggerMs"] == 300000' C add --name interop-hourly --cron "0 * * * *" --system-event tick --json
check "peer: cron list --json (the canonical page: total, offset, limit, hasMore, nextOffset, snapshotRevision)" \
  "d['total'] == 3 and {j['id'] for j in d['jobs']} >= {'$cron_id', '$iso_id'} and all(j['effectiveAgentId'] == 'main' for j in d['jobs'])" \
  C list --json
checktext "peer: cron list (table) shows the jobs with relative next runs" \
  '"interop-ping" in t and "every 10m" in t and "in 10m" in t and "cron 0 7 * * * @ Europe/Berli" in t' C list
check "peer: cron get <id> (cron.get)" "d['id'] == '$cron_id' and d['payload']['text'] == 'ping from the original CLI'" C get "$cron_id"
check "peer: cron edit <id> --name --every 5m (cron.get + cron.update)" \
  "d['id'] == '$cron_id' and d['name'] == 'interop-renamed' and d['schedule']['everyMs'] == 300000" \
  C edit "$cron_id" --name interop-renamed --every 5m
check "peer: cron disable <id>" 'd["enabled"] is False and "nextRunAtMs" not in d["state"]' C disable "$cron_id"
check "peer: cron list --all shows the disabled job, list without it does not" \
  "'$cron_id' in [j['id'] for j in d['jobs']]" C list --all --json
check "peer: cron enable <id>" 'd["enabled"] is True and d["state"]["nextRunAtMs"] > 0' C enable "$cron_id"
check "peer: cron run <id> (enqueued with a runId)" "d['ok'] is True and d['enqueued'] is True and d['runId'].startswith('manual:$cron_id:')" \
  C run "$cron_id"
check "peer: cron run <id> --wait (polls cron.runs by runId until it finished)" \
  'd["completed"] is True and d["status"] == "ok" and d["run"]["summary"] == "ping from the original CLI"' C run "$cron_id" --wait
check "peer: cron runs --id <id> (run history, newest first)" \
  "d['total'] == 2 and all(e['status'] == 'ok' and e['jobId'] == '$cron_id' for e in d['entries']) and d['hasMore'] is False" \
  C runs --id "$cron_id"
C run "$iso_id" --wait >/dev/null 2>&1 # it fails: the exit code says so, the history below shows how
check "peer: an agentTurn run without a model records the runtime's error, never a success" \
  'd["entries"][0]["status"] == "error" and d["entries"][0]["error"].startswith("no model configured for agent main") and d["entries"][0]["deliveryStatus"] == "not-delivered"' C runs --id "$iso_id"
check "peer: system event --text (wake)" 'd == {"ok": True}' \
  P system event --text "interop wake" --url "$url" --token "$token" --json
check "peer: system event --text --mode now (wake)" 'd == {"ok": True}' \
  P system event --text "interop wake now" --mode now --url "$url" --token "$token" --json
check "peer: cron rm <id> (cron.remove)" 'd["ok"] is True and d["removed"] is True' C rm "$cron_id" --json
checkfail "peer: cron rm of an unknown id → the original's not-found message" \
  'd["error"]["message"].startswith("Automation not found: no-such-job.")' C rm no-such-job --json
check "peer: cron list after rm" "'$cron_id' not in [j['id'] for j in d['jobs']] and d['total'] == 2" C list --json
