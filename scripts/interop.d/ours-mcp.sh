# MCP: the TypeScript SDK client from npm (@modelcontextprotocol/sdk, the generation Claude Code
# is built on) against our `openclaw mcp serve` over stdio, and against our gateway's POST /mcp
# (issue 24). Sourced by scripts/interop.sh: $bin, $work, $url, $token and the check helpers are
# defined there. The npm package is installed once into a cache dir (MCP_INTEROP_CACHE, default
# ~/.cache/openclaw-interop/mcp), never into the repository.
mcp_sdk_version=${MCP_SDK_VERSION:-1.32.2}
mcp_cache=${MCP_INTEROP_CACHE:-$HOME/.cache/openclaw-interop/mcp}
if command -v npm >/dev/null 2>&1 && command -v node >/dev/null 2>&1; then
  mkdir -p "$mcp_cache"
  [ -d "$mcp_cache/node_modules/@modelcontextprotocol/sdk" ] ||
    npm install --no-audit --no-fund --prefix "$mcp_cache" "@modelcontextprotocol/sdk@$mcp_sdk_version" >&2 ||
    echo "ours-mcp: npm install failed; its rows will fail" >&2
  # The client lives beside node_modules so node resolves the package from there.
  cat >"$mcp_cache/ours-mcp-client.mjs" <<'JS'
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
const [mode, target, arg] = process.argv.slice(2);
const transport = mode === "http"
  ? new StreamableHTTPClientTransport(new URL(target), { requestInit: { headers: { Authorization: `Bearer ${arg}` } } })
  : new StdioClientTransport({ command: target, args: ["mcp", "serve", "--toolsets", "default,fs,runtime", "--workspace", arg], stderr: "inherit" });
const client = new Client({ name: "interop", version: "1" });
const t0 = performance.now();
await client.connect(transport);
const list = await client.listTools();
const listMs = performance.now() - t0;
const out = { version: client.getServerVersion(), protocol: transport.protocolVersion ?? null, listMs,
  tools: list.tools.map((t) => t.name), annotations: Object.fromEntries(list.tools.map((t) => [t.name, t.annotations])) };
if (mode !== "http") {
  const r = await client.callTool({ name: "read", arguments: { path: "notes.txt" } });
  out.read = r.content.map((c) => c.text ?? "").join("");
  const img = await client.callTool({ name: "read", arguments: { path: "dot.png" } });
  const block = img.content.find((c) => c.type === "image");
  out.image = block ? { mimeType: block.mimeType, bytes: Buffer.from(block.data, "base64").length, png: Buffer.from(block.data, "base64").subarray(1, 4).toString() } : null;
  try { // a tool not listed is a JSON-RPC error (-32602), which the TS client throws
    const denied = await client.callTool({ name: "exec", arguments: { command: "echo no" } });
    out.exec = "called: " + denied.content.map((c) => c.text ?? "").join("");
  } catch (e) { out.exec = String(e); }
} else {
  const r = await client.callTool({ name: "memory_search", arguments: { query: "interop" } });
  out.memory = { isError: r.isError ?? false, text: r.content.map((c) => c.text ?? "").join("").slice(0, 200) };
}
await client.close();
console.log(JSON.stringify(out));
JS
  mcpws="$work/mcpws"; mkdir -p "$mcpws"
  printf 'hello from interop\n' >"$mcpws/notes.txt"
  python3 -c 'import base64,sys; open(sys.argv[1],"wb").write(base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="))' "$mcpws/dot.png"
  # exec is denied for provider mcp by this HOME's config: listed neither, nor callable.
  mcphome="$work/mcphome"; mkdir -p "$mcphome/.openclaw"
  printf '{tools: {byProvider: {mcp: {deny: ["exec"]}}}}\n' >"$mcphome/.openclaw/openclaw.json"
  M() { HOME="$mcphome" OPENCLAW_STATE_DIR="$mcphome/.openclaw" OPENCLAW_CONFIG_PATH= node "$mcp_cache/ours-mcp-client.mjs" "$@"; }
  check "TS SDK $mcp_sdk_version → ours: mcp serve handshake and tools/list" \
    'd["version"]["name"] == "openclaw" and "read" in d["tools"] and "cron" in d["tools"] and "gateway" not in d["tools"] and d["annotations"]["read"]["readOnlyHint"] is True' \
    M stdio "$bin" "$mcpws"
  check "TS SDK → ours: read over stdio" 'd["read"] == "hello from interop\n"' M stdio "$bin" "$mcpws"
  check "TS SDK → ours: an image read decodes (image block)" 'd["image"]["mimeType"] == "image/png" and d["image"]["png"] == "PNG"' M stdio "$bin" "$mcpws"
  check "TS SDK → ours: a tool denied by tools.byProvider.mcp is neither listed nor callable" \
    '"exec" not in d["tools"] and "-32602" in d["exec"] and "unknown tool" in d["exec"]' M stdio "$bin" "$mcpws"
  if [ -n "${url:-}" ]; then
    murl="http://${url#ws://}/mcp"
    check "TS SDK → ours: gateway POST /mcp (stateless HTTP, bearer) lists and calls" \
      '"memory_search" in d["tools"] and "cron" not in d["tools"] and "text" in d["memory"]' M http "$murl" "$token"
    checkfail "TS SDK → ours: gateway POST /mcp without the token is refused" 'True' \
      sh -c 'node "$1" http "$2" wrong >/dev/null 2>&1 || { echo "{}"; exit 1; }' _ "$mcp_cache/ours-mcp-client.mjs" "$murl"
  fi
else
  rows+=("| TS SDK → ours: mcp serve | FAIL (needs node and npm) |"); fail=$((fail + 1))
fi
