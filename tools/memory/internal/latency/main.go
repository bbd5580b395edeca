// Command latency measures `openclaw memory search` as a whole process over
// a corpus of generated notes, with and without an embeddings provider (a
// local server speaking the OpenAI /v1/embeddings shape, in this process).
// With -port it also starts `openclaw serve` on that loopback port over the
// same state and times `memory search --remote` (the CLI relaying to the
// running gateway, whose memory service keeps the index open and watches
// the notes).
//
//	go run ./tools/memory/internal/latency -bin bin/openclaw -notes 400 -runs 20
//	go run ./tools/memory/internal/latency -notes 40000 -runs 20 -modes keyword-only -port 19601
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
	"unicode"
)

func main() {
	bin := flag.String("bin", "bin/openclaw", "openclaw binary")
	notes := flag.Int("notes", 400, "notes to generate")
	runs := flag.Int("runs", 20, "searches per mode")
	port := flag.Int("port", 0, "also time --remote searches against `openclaw serve` on this loopback port")
	modes := flag.String("modes", "keyword-only,hybrid", "comma-separated modes to measure")
	flag.Parse()
	if err := run(*bin, *notes, *runs, *port, strings.Split(*modes, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "latency:", err)
		os.Exit(1)
	}
}

var requests, inputs atomic.Int64

func run(bin string, notes, runs, port int, modes []string) error {
	bin, err := filepath.Abs(bin)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go http.Serve(ln, http.HandlerFunc(serve))
	base := "http://" + ln.Addr().String() + "/v1"

	words := strings.Fields("budget kiosk project release schedule meeting alice bob travel rome flight " +
		"hotel doctor appointment garden tomatoes invoice client contract review design database index " +
		"cache latency deploy server backup laptop battery music guitar lesson recipe pasta coffee tea")
	for _, mode := range modes {
		home, err := os.MkdirTemp("", "memlat-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(home)
		state := filepath.Join(home, ".openclaw")
		ws := filepath.Join(state, "workspace", "memory")
		if err := os.MkdirAll(ws, 0o755); err != nil {
			return err
		}
		var corpus int
		for i := range notes {
			var b strings.Builder
			fmt.Fprintf(&b, "# Note %d\n", i)
			for l := range 12 {
				fmt.Fprintf(&b, "Line %d: the %s and the %s were discussed with %s on day %d.\n", l,
					words[(i*7+l)%len(words)], words[(i*13+l*3)%len(words)], words[(i+l*5)%len(words)], i)
			}
			if err := os.WriteFile(filepath.Join(ws, fmt.Sprintf("%04d.md", i)), []byte(b.String()), 0o644); err != nil {
				return err
			}
			corpus += b.Len()
		}
		fmt.Printf("%-12s corpus: %d notes, %.1f MB\n", mode, notes, float64(corpus)/1e6)
		ms := map[string]any{"provider": "none"}
		if mode == "hybrid" {
			ms = map[string]any{"provider": "openai", "remote": map[string]any{"baseUrl": base, "apiKey": "k"}}
		}
		conf := map[string]any{"agents": map[string]any{"defaults": map[string]any{"memorySearch": ms}}}
		if port != 0 {
			conf["gateway"] = map[string]any{"port": port, "auth": map[string]any{"mode": "token", "token": "latency"}}
		}
		cfg, _ := json.Marshal(conf)
		if err := os.WriteFile(filepath.Join(state, "openclaw.json"), cfg, 0o600); err != nil {
			return err
		}
		env := append(os.Environ(), "HOME="+home, "OPENCLAW_STATE_DIR="+state, "OPENCLAW_CONFIG_PATH="+filepath.Join(state, "openclaw.json"))
		search := func(q string, extra ...string) (time.Duration, string, error) {
			cmd := exec.Command(bin, append([]string{"memory", "search", q, "--json"}, extra...)...)
			cmd.Env = env
			start := time.Now()
			out, err := cmd.Output()
			d := time.Since(start)
			if err != nil {
				return d, "", fmt.Errorf("%s: %v: %s", mode, err, out)
			}
			return d, string(out), nil
		}
		// The first search builds the index (and embeds every chunk).
		requests.Store(0)
		inputs.Store(0)
		first, out, err := search("warm up")
		if err != nil {
			return err
		}
		if !strings.Contains(out, `"mode":"`+mode+`"`) {
			return fmt.Errorf("%s: unexpected result %s", mode, out[:min(300, len(out))])
		}
		fmt.Printf("%-12s first search (index build%s): %v  [%d embedding requests, %d texts]\n", mode,
			map[bool]string{true: " + embed all chunks", false: ""}[mode == "hybrid"], first.Round(time.Millisecond), requests.Load(), inputs.Load())
		// Notes written within the racy window (2 s) of a sync are
		// re-hashed by the next ones; measure the steady state.
		time.Sleep(2100 * time.Millisecond)
		if _, _, err := search("settle"); err != nil {
			return err
		}
		if err := measure(mode, "local", notes, runs, words, search); err != nil {
			return err
		}
		if port == 0 {
			continue
		}
		stop, err := startGateway(bin, env, port)
		if err != nil {
			return err
		}
		remote := func(q string, extra ...string) (time.Duration, string, error) {
			return search(q, append(extra, "--remote")...)
		}
		// The gateway's first search opens the index and starts watching.
		if _, _, err := remote("warm up"); err != nil {
			stop()
			return err
		}
		err = measure(mode, "gateway", notes, runs, words, remote)
		stop()
		if err != nil {
			return err
		}
	}
	return nil
}

func measure(mode, where string, notes, runs int, words []string, search func(string, ...string) (time.Duration, string, error)) error {
	var ds []time.Duration
	requests.Store(0)
	for i := range runs {
		d, _, err := search(words[i%len(words)] + " " + words[(i*3+1)%len(words)])
		if err != nil {
			return err
		}
		ds = append(ds, d)
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	fmt.Printf("%-12s %-7s %d notes, %d searches: median %v, min %v, max %v  [%d embedding requests]\n", mode, where, notes, runs,
		ds[len(ds)/2].Round(100*time.Microsecond), ds[0].Round(100*time.Microsecond), ds[len(ds)-1].Round(100*time.Microsecond), requests.Load())
	return nil
}

// startGateway runs `openclaw serve` on the loopback port and waits for
// /readyz; stop ends it (SIGTERM, then waits).
func startGateway(bin string, env []string, port int) (stop func(), err error) {
	cmd := exec.Command(bin, "serve")
	cmd.Env = env
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	stop = func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/readyz", port))
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return stop, nil
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	stop()
	return nil, fmt.Errorf("gateway on port %d not ready after 10 s", port)
}

// serve answers /v1/embeddings with bag-of-hashed-words vectors (256 dims).
func serve(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	requests.Add(1)
	inputs.Add(int64(len(req.Input)))
	data := make([]map[string]any, len(req.Input))
	for i, t := range req.Input {
		v := make([]float32, 256)
		for _, word := range strings.FieldsFunc(strings.ToLower(t), func(r rune) bool { return !unicode.IsLetter(r) }) {
			h := fnv.New32a()
			h.Write([]byte(word))
			v[h.Sum32()%256]++
		}
		data[i] = map[string]any{"index": i, "embedding": v}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"data": data})
}
