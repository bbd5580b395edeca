# Message: the original CLI's `openclaw message <action>` (it calls message.action) and
# `gateway call send` against our gateway, whose channels.telegram points at a local
# Telegram Bot API stand-in (scripts/telegram-standin.py) (issue 23).
# Sourced by scripts/interop.sh: $url, $token, $work, $bin, $peer, P and the check helpers.
tg_port=$(free_port)
tg_log="$work/tg.log"
python3 -W ignore "$root/scripts/telegram-standin.py" "$tg_port" 123:ABC "$tg_log" >"$work/tg.out" 2>&1 &
pids+=($!)
for _ in $(seq 1 50); do curl -s -o /dev/null "http://127.0.0.1:$tg_port/" && break; sleep 0.1; done
mport=$(free_port)
mkdir -p "$work/msgstate/media"
printf '{"channels":{"telegram":{"botToken":"123:ABC","apiBaseUrl":"http://127.0.0.1:%s"}}}\n' "$tg_port" >"$work/msgstate/openclaw.json"
printf 'PNGFAKEDATA' >"$work/msgstate/media/chart.png"
OPENCLAW_STATE_DIR="$work/msgstate" "$bin" serve --port "$mport" --auth token --token "$token" >"$work/msg-gw.log" 2>&1 &
pids+=($!)
if wait_ready "http://127.0.0.1:$mport/readyz" 10; then
  M() { env OPENCLAW_GATEWAY_URL="ws://127.0.0.1:$mport" OPENCLAW_GATEWAY_TOKEN="$token" HOME="$work/peerhome" "$peer" message "$@"; }
  tglast() { tail -n 1 "$tg_log"; }
  check "peer: message send --channel telegram (message.action → sendMessage, platform message id)" \
    'd["channel"] == "telegram" and d["payload"]["ok"] is True and d["messageId"] == d["payload"]["messageId"] and int(d["messageId"]) > 100' \
    M send --channel telegram -t -1001234567890 -m "hello from the original CLI" --json
  check "peer: the stand-in got sendMessage with chat_id and text" \
    'd["method"] == "sendMessage" and d["params"]["chat_id"] == -1001234567890 and d["params"]["text"] == "hello from the original CLI"' tglast
  check "peer: message send --thread-id --reply-to (forum topic, reply_parameters)" 'd["payload"]["ok"] is True' \
    M send --channel telegram -t -1001234567890 -m "in a topic" --thread-id 7 --reply-to 101 --json
  check "peer: the stand-in got message_thread_id and reply_parameters" \
    'd["params"]["message_thread_id"] == 7 and d["params"]["reply_parameters"] == {"message_id": 101}' tglast
  check "peer: message send --media (multipart sendPhoto with the caption)" 'd["payload"]["ok"] is True' \
    M send --channel telegram -t @claw_news -m "chart" --media "$work/msgstate/media/chart.png" --json
  check "peer: the stand-in got sendPhoto as multipart" \
    'd["method"] == "sendPhoto" and d["files"]["photo"]["filename"] == "chart.png" and d["files"]["photo"]["size"] == 11 and d["params"]["caption"] == "chart"' tglast
  check "peer: message poll (sendPoll)" 'd["payload"]["ok"] is True and d["payload"]["messageId"]' \
    M poll --channel telegram -t -1001234567890 --poll-question "Lunch?" --poll-option Pizza --poll-option Sushi --json
  check "peer: the stand-in got sendPoll" 'd["method"] == "sendPoll" and d["params"]["question"] == "Lunch?" and [o["text"] for o in d["params"]["options"]] == ["Pizza", "Sushi"]' tglast
  check "peer: gateway call send (SendParams → messageId)" 'd["runId"] == "interop-send-1" and d["channel"] == "telegram" and int(d["messageId"]) > 100' \
    P gateway call send --url "ws://127.0.0.1:$mport" --token "$token" --json --params '{"to":"-100777","message":"send method","channel":"telegram","idempotencyKey":"interop-send-1"}'
  check "peer: gateway call channels.status --probe (getMe)" \
    'd["channelOrder"] == ["telegram"] and d["channelAccounts"]["telegram"][0]["probe"]["bot"]["username"] == "claw_bot"' \
    P gateway call channels.status --url "ws://127.0.0.1:$mport" --token "$token" --json --params '{"probe":true}'
  checkfail "peer: gateway call message.action read on telegram: not supported" \
    '"not supported on telegram" in d["error"]["message"]' \
    P gateway call message.action --url "ws://127.0.0.1:$mport" --token "$token" --json --params '{"channel":"telegram","action":"read","params":{"to":"-100777"}}'
else
  rows+=("| peer: message gateway start | FAIL |"); fail=$((fail + 1))
  tail -20 "$work/msg-gw.log" >&2
fi
