# Cron: our `openclaw cron …` against the original gateway (issue 21).
# Sourced by scripts/interop.sh: $purl, $token, $bin and the check helpers are defined there.
O() { "$bin" cron "$@" --url "$purl" --token "$token" --timeout 60s; }
check "ours → peer: cron status" 'd["enabled"] is True and isinstance(d["jobs"], int)' O status --json
check "ours → peer: cron list (its canonical page)" 'isinstance(d["jobs"], list) and d["total"] == len(d["jobs"]) and d["hasMore"] is False' \
  O list --all --json
ours_added=$("$bin" cron add --name ours-ping --every 10m --system-event "ping from ours" --json --url "$purl" --token "$token" --timeout 60s 2>/dev/null)
ours_id=$(printf '%s' "$ours_added" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])' 2>/dev/null)
check "ours → peer: cron add --every 10m (durations converted as the original CLI does)" \
  'd["schedule"]["everyMs"] == 600000 and d["payload"]["text"] == "ping from ours"' printf '%s' "$ours_added"
check "ours → peer: cron list shows the job" "'$ours_id' in [j['id'] for j in d['jobs']]" O list --json
check "ours → peer: cron rm" 'd["ok"] is True and d["removed"] is True' O rm "$ours_id" --json
