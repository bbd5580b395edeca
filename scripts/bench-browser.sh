#!/usr/bin/env bash
# Browser snapshot/type/click timings side by side (issue 19): ours as a
# whole CLI process per call (browser running), Playwright MCP as one
# kept-up stdio server timed per tools/call, and agent-browser as a whole
# CLI process per call (its daemon running), on generated pages of 300,
# 3,000 and 10,000 elements served on loopback. All three are up at once
# and each cell's calls alternate between them, so the machine's load hits
# every column alike. Prints a table of medians and the load average.
#
#   scripts/bench-browser.sh [bin/openclaw]
#
# Environment: RUNS (timed calls per cell, default 7, after two warm-up
# rounds), WARMUP (seconds to let the freshly launched browsers settle
# before the first page's cells, default 60),
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
WARMUP = float(os.environ.get("WARMUP", "60"))
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
    if not fns:
        return []
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

# Every tool is kept up at once and each cell's calls are taken in turn
# (ours, Playwright MCP, agent-browser, ...), so the machine's load at the
# time hits every column alike.

class Tool:
    """One side of the comparison: open(n) loads page n and finds the
    search box and the button; snapshot/type/click are the timed calls."""
    name = ""
    def __init__(self): self.ok = True

# --- ours: a whole CLI process per call, the browser running
class Ours(Tool):
    name = "ours"
    def __init__(self):
        super().__init__()
        state = os.path.join(WORK, "state"); os.makedirs(state)
        with open(os.path.join(state, "openclaw.json"), "w") as f:
            json.dump({"browser": {"executablePath": CHROMIUM, "headless": True, "noSandbox": ROOT,
                                   "ssrfPolicy": {"dangerouslyAllowPrivateNetwork": True},
                                   "profiles": {"openclaw": {"cdpPort": port()}}}}, f)
        self.env = dict(os.environ, OPENCLAW_STATE_DIR=state, HOME=state)
        self.oc("start")
        self.tid = None
    def oc(self, *args):
        r = subprocess.run([BIN, "browser", *args, "--json"], env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            raise RuntimeError("openclaw browser %s: exit %d %s" % (" ".join(args), r.returncode, r.stderr.strip()))
        return r.stdout
    def open(self, n):
        if self.tid:
            self.oc("close", self.tid)
        self.tid = json.loads(self.oc("open", url(n)))["details"]["targetId"]
        snap = json.loads(self.oc("snapshot", "--target-id", self.tid, "--max-chars", "0"))["content"][0]["text"]
        self.box, self.go = ref_of(snap, r'textbox "Search"'), ref_of(snap, r'button "Go"')
    def snapshot(self): self.oc("snapshot", "--target-id", self.tid)
    def snapshot_full(self): self.oc("snapshot", "--target-id", self.tid, "--max-chars", "0")
    def type(self): self.oc("type", self.box, "hello", "--target-id", self.tid)
    def click(self): self.oc("click", self.go, "--target-id", self.tid)
    def stop(self):
        try:
            self.oc("stop")
        except Exception:
            pass

# --- Playwright MCP: one kept-up stdio server, timed per tools/call
class PlaywrightMCP(Tool):
    def __init__(self, mode):
        super().__init__()
        self.name = "pw" if mode == "full" else "pw-none"
        pw = os.path.join(CACHE, "node_modules", "@playwright", "mcp", "cli.js")
        args = [shutil.which("node"), pw, "--headless", "--isolated", "--executable-path", CHROMIUM]
        if ROOT:
            args.append("--no-sandbox")
        self.srv = subprocess.Popen(args + ["--snapshot-mode", mode, "--output-dir", os.path.join(WORK, "pw-out-" + mode)], cwd=WORK,
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                    start_new_session=True)
        self.seq = 0
        self.rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}})
        self.rpc("notifications/initialized", notify=True)
    def rpc(self, method, params=None, notify=False):
        msg = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        if not notify:
            self.seq += 1; msg["id"] = self.seq
        self.srv.stdin.write(json.dumps(msg) + "\n"); self.srv.stdin.flush()
        if notify:
            return None
        while True:
            line = self.srv.stdout.readline()
            if not line:
                raise RuntimeError("Playwright MCP exited")
            m = json.loads(line)
            if m.get("id") == self.seq:
                if "error" in m:
                    raise RuntimeError(str(m["error"]))
                return m["result"]
    def call(self, name, a):
        r = self.rpc("tools/call", {"name": name, "arguments": a})
        text = "\n".join(c.get("text", "") for c in r.get("content", []))
        if r.get("isError"):
            raise RuntimeError("%s: %s" % (name, text[:300]))
        return text
    def open(self, n):
        self.call("browser_navigate", {"url": url(n)})
        snap = self.call("browser_snapshot", {})
        self.box, self.go = ref_of(snap, r'textbox "Search"'), ref_of(snap, r'button "Go"')
    def snapshot(self): self.call("browser_snapshot", {})
    def type(self): self.call("browser_type", {"element": "Search", "target": self.box, "ref": self.box, "text": "hello"})
    def click(self): self.call("browser_click", {"element": "Go", "target": self.go, "ref": self.go})
    def stop(self):
        try:
            self.srv.stdin.close(); self.srv.wait(10)
        except Exception:
            os.killpg(self.srv.pid, signal.SIGKILL)

# --- agent-browser: a whole CLI process per call, its daemon running
class AgentBrowser(Tool):
    name = "ab"
    def __init__(self, exe):
        super().__init__()
        self.exe = exe
        abhome = os.path.join(WORK, "abhome"); os.makedirs(abhome)
        self.env = dict(os.environ, HOME=abhome, AGENT_BROWSER_EXECUTABLE_PATH=CHROMIUM, AGENT_BROWSER_SESSION="bench")
        if ROOT:
            self.env["AGENT_BROWSER_ARGS"] = "--no-sandbox"
    def abr(self, *a):
        r = subprocess.run([self.exe, *a], env=self.env, cwd=WORK, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
        if r.returncode != 0:
            raise RuntimeError("agent-browser %s: exit %d %s" % (" ".join(a), r.returncode, (r.stderr or r.stdout).strip()[:300]))
        return r.stdout
    def open(self, n):
        self.abr("open", url(n))
        snap = self.abr("snapshot")
        self.box, self.go = ref_of(snap, r'textbox "Search"'), ref_of(snap, r'button "Go"')
    def snapshot(self): self.abr("snapshot")
    def type(self): self.abr("fill", "@" + self.box, "hello")
    def click(self): self.abr("click", "@" + self.go)
    def stop(self):
        try:
            self.abr("close", "--all")
        except Exception:
            pass

loads = [os.getloadavg()]
tools_up = [Ours()]
node = shutil.which("node")
if node and os.path.exists(os.path.join(CACHE, "node_modules", "@playwright", "mcp", "cli.js")):
    for mode in ("full", "none"):
        try:
            tools_up.append(PlaywrightMCP(mode))
        except Exception as e:
            notes.append("Playwright MCP (%s): %s" % (mode, e))
else:
    notes.append("Playwright MCP: not installed (needs node and npm)")
ab = os.path.join(CACHE, "node_modules", "agent-browser", "bin", "agent-browser-linux-x64")
if os.access(ab, os.X_OK):
    tools_up.append(AgentBrowser(ab))
else:
    notes.append("agent-browser: not installed (needs npm)")

def guarded(t, fn):
    """fn of tool t; a comparison tool that fails drops out of the run with
    a note (ours failing fails the bench)."""
    def run():
        if not t.ok:
            return
        try:
            fn()
        except Exception as e:
            if t.name == "ours":
                raise
            t.ok = False
            notes.append("%s: %s" % (t.name, e))
    return run

try:
    for i, n in enumerate(SIZES):
        for t in tools_up:
            guarded(t, lambda: t.open(n))()
        if i == 0:
            # The comparison tools launch their browsers on their first
            # page; a fresh Chromium keeps working for a while after (its
            # start-up tasks), which would weigh on the first page's cells.
            time.sleep(WARMUP)
            loads.append(os.getloadavg())
        cells = {
            "snapshot": [(t.name, "snapshot", t.snapshot) for t in tools_up if t.name != "pw-none"] +
                        [("ours", "snapshot full", tools_up[0].snapshot_full)],
            "type": [(t.name, "type", t.type) for t in tools_up],
            "click": [(t.name, "click", t.click) for t in tools_up],
        }
        for op, cs in cells.items():
            byname = {t.name: t for t in tools_up}
            live = [(name, key, fn) for name, key, fn in cs if byname[name].ok]
            ms = timed(*[guarded(byname[name], fn) for name, _, fn in live])
            if len(live) == 1:
                ms = [ms]
            for (name, key, _), v in zip(live, ms):
                if byname[name].ok:
                    tool = "pw" if name == "pw-none" else name
                    results[(tool, key + (" (--snapshot-mode none)" if name == "pw-none" else ""), n)] = v
        loads.append(os.getloadavg())
finally:
    for t in tools_up:
        t.stop()

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
print("\nload average (1 min) at the start, after the warm-up pause and after each page size: %s (%d CPUs)" % (
    ", ".join("%.1f" % l[0] for l in loads), os.cpu_count() or 0))
for n in notes:
    print("note: " + n)
PY
