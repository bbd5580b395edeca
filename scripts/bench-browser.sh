#!/usr/bin/env bash
# Browser snapshot/type/click timings side by side (issue 19): ours as a
# whole CLI process per call (browser running), Playwright MCP as one
# kept-up stdio server timed per tools/call, and agent-browser as a whole
# CLI process per call (its daemon running), on generated pages of 300,
# 3,000 and 10,000 elements served on loopback. Prints a table of medians.
#
#   scripts/bench-browser.sh [bin/openclaw]
#
# Environment: RUNS (timed calls per cell, default 7, after one warm-up),
# SIZES (default "300 3000 10000"), CHROMIUM (default /usr/bin/chromium),
# BENCH_CACHE (where the comparison tools are installed from npm, default
# ~/.cache/openclaw-bench; never the repository), PORT_BASE (first of 3
# loopback ports to use; default: free ports the kernel picks).
# Needs python3 and Chromium; the comparison columns also need node/npm
# (without them they read "n/a" and the reason is printed).
set -euo pipefail

BIN=${1:-bin/openclaw}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
CACHE=${BENCH_CACHE:-$HOME/.cache/openclaw-bench}
PW_MCP_VERSION=0.0.83
AB_VERSION=0.27.0

[ -x "$BIN" ] || { echo "bench-browser: $BIN is not built (make build)" >&2; exit 1; }
[ -x "$CHROMIUM" ] || { echo "bench-browser: no Chromium at $CHROMIUM (CHROMIUM=...)" >&2; exit 1; }

# The comparison tools, installed once into the cache (npm's own client).
if command -v npm >/dev/null 2>&1; then
  if [ ! -f "$CACHE/node_modules/@playwright/mcp/package.json" ] || [ ! -f "$CACHE/node_modules/agent-browser/package.json" ]; then
    mkdir -p "$CACHE"
    echo "bench-browser: installing @playwright/mcp@$PW_MCP_VERSION and agent-browser@$AB_VERSION into $CACHE" >&2
    npm install --no-audit --no-fund --prefix "$CACHE" "@playwright/mcp@$PW_MCP_VERSION" "agent-browser@$AB_VERSION" >&2 ||
      echo "bench-browser: npm install failed; the comparison columns will read n/a" >&2
  fi
  # agent-browser ships its native binaries in the package (its postinstall
  # only picks one): make the Linux one executable.
  chmod +x "$CACHE/node_modules/agent-browser/bin/agent-browser-linux-x64" 2>/dev/null || true
fi

WORK=$(mktemp -d)
cleanup() {
  OPENCLAW_STATE_DIR=$WORK/state HOME=$WORK/state "$BIN" browser stop >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

python3 - "$BIN" "$CHROMIUM" "$CACHE" "$WORK" <<'PY'
import json, os, re, shutil, signal, socket, statistics, subprocess, sys, time

BIN, CHROMIUM, CACHE, WORK = sys.argv[1:5]
RUNS = int(os.environ.get("RUNS", "7"))
SIZES = [int(s) for s in os.environ.get("SIZES", "300 3000 10000").split()]
ROOT = os.geteuid() == 0

ports = []
def port():
    base = int(os.environ.get("PORT_BASE", "0") or 0)
    if base:
        p = base + len(ports)
    else:
        s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close()
    ports.append(p)
    return p

# --- pages: a search form (type and click targets) and cards of 10 elements
pages = os.path.join(WORK, "pages"); os.makedirs(pages)
for n in SIZES:
    cards, count, i = [], 7, 0
    while count + 10 <= n:
        cards.append('<section class=card><h3>Item %d</h3><p>Text for item %d <a href="/item/%d">details %d</a> and <em>more</em></p>'
                     '<label>Qty %d <input type=number value=1></label><button type=button>Add %d</button><ul><li>Tag %d</li></ul></section>' % ((i,) * 7))
        i += 1; count += 10
    with open(os.path.join(pages, "p%d.html" % n), "w") as f:
        f.write('<!doctype html><html><head><meta charset=utf-8><title>Bench %d</title></head><body>\n<h1>Bench page</h1>\n'
                '<form onsubmit="event.preventDefault()"><label for=q>Search</label><input id=q name=q>\n'
                '<button id=go type=button onclick="document.getElementById(\'out\').textContent=\'Clicked \'+(++window.clicks||(window.clicks=1))">Go</button></form>\n'
                '<p id=out>Not clicked</p>\n'
                % n + "\n".join(cards) + "\n</body></html>\n")
http_port = port()
http = subprocess.Popen([sys.executable, "-m", "http.server", "--bind", "127.0.0.1", str(http_port)], cwd=pages,
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
def url(n): return "http://127.0.0.1:%d/p%d.html" % (http_port, n)
for _ in range(100):
    try:
        socket.create_connection(("127.0.0.1", http_port), 0.2).close(); break
    except OSError:
        time.sleep(0.05)

def median_ms(xs): return statistics.median(xs) * 1000
def timed(*fns):
    """Median ms of each fn over RUNS calls, the fns taken in turn (after
    two warm-up rounds), so a drift of the machine's speed hits all alike."""
    for _ in range(2):
        for fn in fns:
            fn()
    out = [[] for _ in fns]
    for _ in range(RUNS):
        for i, fn in enumerate(fns):
            t = time.perf_counter(); fn(); out[i].append(time.perf_counter() - t)
    ms = [median_ms(o) for o in out]
    return ms[0] if len(ms) == 1 else ms
def ref_of(text, pattern):
    m = re.search(pattern + r'[^\n]*?\bref=(@?[a-z0-9]+)', text)
    return m.group(1) if m else None

results = {}  # (tool, op, size) -> ms or None
notes = []

# --- ours: a whole CLI process per call, the browser running
state = os.path.join(WORK, "state"); os.makedirs(state)
with open(os.path.join(state, "openclaw.json"), "w") as f:
    json.dump({"browser": {"executablePath": CHROMIUM, "headless": True, "noSandbox": ROOT,
                           "ssrfPolicy": {"dangerouslyAllowPrivateNetwork": True},
                           "profiles": {"openclaw": {"cdpPort": port()}}}}, f)
env = dict(os.environ, OPENCLAW_STATE_DIR=state, HOME=state)
def oc(*args, check=True):
    r = subprocess.run([BIN, "browser", *args, "--json"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if check and r.returncode != 0:
        raise RuntimeError("openclaw browser %s: exit %d %s" % (" ".join(args), r.returncode, r.stderr.strip()))
    return r.stdout
oc("start")
for n in SIZES:
    tid = json.loads(oc("open", url(n)))["details"]["targetId"]
    snap = json.loads(oc("snapshot", "--target-id", tid, "--max-chars", "0"))["content"][0]["text"]
    box, go = ref_of(snap, r'textbox "Search"'), ref_of(snap, r'button "Go"')
    results[("ours", "snapshot", n)], results[("ours", "snapshot full", n)] = timed(
        lambda: oc("snapshot", "--target-id", tid), lambda: oc("snapshot", "--target-id", tid, "--max-chars", "0"))
    results[("ours", "type", n)] = timed(lambda: oc("type", box, "hello", "--target-id", tid))
    results[("ours", "click", n)] = timed(lambda: oc("click", go, "--target-id", tid))
    oc("close", tid)
oc("stop")

# --- Playwright MCP: one kept-up stdio server, timed per tools/call
pw = os.path.join(CACHE, "node_modules", "@playwright", "mcp", "cli.js")
node = shutil.which("node")
if node and os.path.exists(pw):
    args = [node, pw, "--headless", "--isolated", "--executable-path", CHROMIUM]
    if ROOT:
        args.append("--no-sandbox")
    for mode in ("full", "none"):
        srv = subprocess.Popen(args + ["--snapshot-mode", mode, "--output-dir", os.path.join(WORK, "pw-out")], cwd=WORK,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                               start_new_session=True)
        seq = [0]
        def rpc(method, params=None, notify=False):
            msg = {"jsonrpc": "2.0", "method": method}
            if params is not None:
                msg["params"] = params
            if not notify:
                seq[0] += 1; msg["id"] = seq[0]
            srv.stdin.write(json.dumps(msg) + "\n"); srv.stdin.flush()
            if notify:
                return None
            while True:
                line = srv.stdout.readline()
                if not line:
                    raise RuntimeError("Playwright MCP exited")
                m = json.loads(line)
                if m.get("id") == seq[0]:
                    if "error" in m:
                        raise RuntimeError(str(m["error"]))
                    return m["result"]
        def call(name, a):
            r = rpc("tools/call", {"name": name, "arguments": a})
            text = "\n".join(c.get("text", "") for c in r.get("content", []))
            if r.get("isError"):
                raise RuntimeError("%s: %s" % (name, text[:300]))
            return text
        try:
            rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}})
            rpc("notifications/initialized", notify=True)
            for n in SIZES:
                call("browser_navigate", {"url": url(n)})
                snap = call("browser_snapshot", {})
                box, go = ref_of(snap, r'textbox "Search"'), ref_of(snap, r'button "Go"')
                tag = "" if mode == "full" else " (--snapshot-mode none)"
                if mode == "full":
                    results[("pw", "snapshot", n)] = timed(lambda: call("browser_snapshot", {}))
                results[("pw", "type" + tag, n)] = timed(lambda: call("browser_type", {"element": "Search", "target": box, "ref": box, "text": "hello"}))
                results[("pw", "click" + tag, n)] = timed(lambda: call("browser_click", {"element": "Go", "target": go, "ref": go}))
        except Exception as e:
            notes.append("Playwright MCP (%s): %s" % (mode, e))
        finally:
            try:
                srv.stdin.close(); srv.wait(10)
            except Exception:
                os.killpg(srv.pid, signal.SIGKILL)
else:
    notes.append("Playwright MCP: not installed (needs node and npm)")

# --- agent-browser: a whole CLI process per call, its daemon running
ab = os.path.join(CACHE, "node_modules", "agent-browser", "bin", "agent-browser-linux-x64")
if os.access(ab, os.X_OK):
    abhome = os.path.join(WORK, "abhome"); os.makedirs(abhome)
    abenv = dict(os.environ, HOME=abhome, AGENT_BROWSER_EXECUTABLE_PATH=CHROMIUM, AGENT_BROWSER_SESSION="bench")
    if ROOT:
        abenv["AGENT_BROWSER_ARGS"] = "--no-sandbox"
    def abr(*a):
        r = subprocess.run([ab, *a], env=abenv, cwd=WORK, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
        if r.returncode != 0:
            raise RuntimeError("agent-browser %s: exit %d %s" % (" ".join(a), r.returncode, (r.stderr or r.stdout).strip()[:300]))
        return r.stdout
    try:
        for n in SIZES:
            abr("open", url(n))
            snap = abr("snapshot")
            box, go = ref_of(snap, r'textbox "Search"'), ref_of(snap, r'button "Go"')
            results[("ab", "snapshot", n)] = timed(lambda: abr("snapshot"))
            results[("ab", "type", n)] = timed(lambda: abr("fill", "@" + box, "hello"))
            results[("ab", "click", n)] = timed(lambda: abr("click", "@" + go))
    except Exception as e:
        notes.append("agent-browser: %s" % e)
    finally:
        try:
            abr("close", "--all")
        except Exception:
            pass
else:
    notes.append("agent-browser: not installed (needs npm)")

http.terminate()

# --- the table (medians of RUNS calls, ms)
def cell(k):
    v = results.get(k)
    return "n/a" if v is None else "%.0f ms" % v
print("\nBrowser calls, median of %d (ms; ours and agent-browser: a whole CLI process per call; Playwright MCP: one tools/call to a kept-up server)\n" % RUNS)
print("| page | call | ours | Playwright MCP | Playwright MCP, --snapshot-mode none | agent-browser CLI |")
print("|---|---|---|---|---|---|")
for n in SIZES:
    for op in ("snapshot", "type", "click"):
        none = cell(("pw", op + " (--snapshot-mode none)", n)) if op != "snapshot" else "-"
        print("| %s elements | %s | %s | %s | %s | %s |" % (format(n, ","), op, cell(("ours", op, n)), cell(("pw", op, n)), none, cell(("ab", op, n))))
    print("| %s elements | snapshot, no --max-chars cap | %s | - | - | - |" % (format(n, ","), cell(("ours", "snapshot full", n))))
for n in notes:
    print("note: " + n)
PY
