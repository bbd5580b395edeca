package commands

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/tidwall/gjson"
)

// braveServer answers Brave's web search API for one key.
func braveServer(t *testing.T, key string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/res/v1/web/search" || r.Header.Get("X-Subscription-Token") != key {
			http.Error(w, `{"error":"unauthorized"}`, 401)
			return
		}
		fmt.Fprint(w, `{"web":{"results":[{"title":"OpenClaw","url":"https://openclaw.ai/","description":"An agent gateway"}]}}`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func writeCfg(t *testing.T, home string, doc map[string]any) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(home, ".openclaw"), 0o700); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(doc)
	if err := os.WriteFile(cfgFile(home), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func readCfg(t *testing.T, home string) gjson.Result {
	t.Helper()
	b, err := os.ReadFile(cfgFile(home))
	if err != nil {
		t.Fatal(err)
	}
	return gjson.ParseBytes(b)
}

func TestConfigureListsSections(t *testing.T) {
	r := runOC(t, t.TempDir(), "configure", "--json")
	if r.code != 0 || gjson.Get(r.stdout, `sections.#(section=="web").status`).String() != "available" ||
		gjson.Get(r.stdout, `sections.#(section=="model").status`).String() != "coming" {
		t.Fatalf("%+v", r)
	}
	if r := runOC(t, t.TempDir(), "configure", "--section", "model"); r.code != 2 || !strings.Contains(r.stderr, "coming") {
		t.Fatalf("model section: %+v", r)
	}
}

func TestConfigureWebFlagsWriteKeysWhereTheOriginalDoes(t *testing.T) {
	home := t.TempDir()
	// Piped without --yes: a usage error, nothing written.
	if r := runOC(t, home, "configure", "--section", "web"); r.code != 2 || !strings.Contains(r.stderr, "--yes") {
		t.Fatalf("no tty: %+v", r)
	}
	srv := braveServer(t, "BSA-good")
	writeCfg(t, home, map[string]any{"tools": map[string]any{"web": map[string]any{"search": map[string]any{"brave": map[string]any{"baseUrl": srv.URL}}}}})
	r := runOC(t, home, "configure", "--section", "web", "--provider", "brave", "--api-key", "BSA-good", "--test", "--yes")
	if r.code != 0 || !strings.Contains(r.stderr, "Key works") || !strings.Contains(r.stderr, "Configure complete.") {
		t.Fatalf("%+v", r)
	}
	c := readCfg(t, home)
	if c.Get("tools.web.search.apiKey").String() != "BSA-good" || c.Get("tools.web.search.provider").String() != "brave" ||
		!c.Get("tools.web.search.enabled").Bool() || !c.Get("tools.web.fetch.enabled").Bool() ||
		c.Get("tools.web.search.brave.baseUrl").String() != srv.URL {
		t.Fatalf("config %s", c.Raw)
	}
	// Other providers keep their key under tools.web.search.<provider>.
	r = runOC(t, home, "configure", "--section", "web", "--provider", "grok", "--api-key", "xai-k", "--disable-fetch", "--yes")
	c = readCfg(t, home)
	if r.code != 0 || c.Get("tools.web.search.grok.apiKey").String() != "xai-k" || c.Get("tools.web.search.provider").String() != "grok" ||
		c.Get("tools.web.fetch.enabled").Bool() || c.Get("tools.web.search.apiKey").String() != "BSA-good" {
		t.Fatalf("%+v %s", r, c.Raw)
	}
	if _, err := os.Stat(cfgFile(home) + ".bak"); err != nil {
		t.Errorf("no .bak: %v", err)
	}
	// A key that fails the test is not saved.
	r = runOC(t, home, "configure", "--section", "web", "--provider", "brave", "--api-key", "BSA-bad", "--test", "--yes")
	if r.code == 0 || !strings.Contains(r.stderr, "Brave Search API error (401)") || readCfg(t, home).Get("tools.web.search.apiKey").String() != "BSA-good" {
		t.Fatalf("bad key: %+v", r)
	}
	// The search then works end to end from the stored config.
	runOC(t, home, "configure", "--section", "web", "--provider", "brave", "--yes")
	r = runOC(t, home, "web", "search", "OpenClaw", "--json")
	if r.code != 0 || gjson.Get(r.stdout, "results.0.url").String() != "https://openclaw.ai/" {
		t.Fatalf("search: %+v", r)
	}
}

// ptySession drives a command on a pseudo-terminal: wait for a prompt,
// type an answer.
type ptySession struct {
	t    *testing.T
	f    *os.File
	mu   sync.Mutex
	buf  bytes.Buffer
	more chan struct{}
	done chan struct{}
}

func startPTY(t *testing.T, cmd *exec.Cmd) *ptySession {
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 200})
	if err != nil {
		t.Fatal(err)
	}
	s := &ptySession{t: t, f: f, more: make(chan struct{}, 1), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		b := make([]byte, 4096)
		for {
			n, err := f.Read(b)
			s.mu.Lock()
			s.buf.Write(b[:n])
			s.mu.Unlock()
			select {
			case s.more <- struct{}{}:
			default:
			}
			if err != nil {
				return
			}
		}
	}()
	return s
}

// expect waits (with a deadline, no sleeps) until the output holds want.
func (s *ptySession) expect(want string) {
	s.t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		s.mu.Lock()
		ok := strings.Contains(s.buf.String(), want)
		s.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-s.more:
		case <-s.done:
			s.mu.Lock()
			defer s.mu.Unlock()
			if !strings.Contains(s.buf.String(), want) {
				s.t.Fatalf("output ended without %q:\n%s", want, s.buf.String())
			}
			return
		case <-deadline:
			s.mu.Lock()
			defer s.mu.Unlock()
			s.t.Fatalf("no %q in:\n%s", want, s.buf.String())
		}
	}
}

func (s *ptySession) send(line string) {
	if _, err := io.WriteString(s.f, line+"\r"); err != nil {
		s.t.Fatal(err)
	}
}

func (s *ptySession) output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

func TestConfigureWebInteractiveOnPTY(t *testing.T) {
	home := t.TempDir()
	srv := braveServer(t, "BSA-secret-typed")
	writeCfg(t, home, map[string]any{"tools": map[string]any{"web": map[string]any{"search": map[string]any{"brave": map[string]any{"baseUrl": srv.URL}}}}})
	exe, err := exec.LookPath("openclaw")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "configure", "--section", "web")
	cmd.Dir = home
	cmd.Env = append(os.Environ(), "HOME="+home, "OPENCLAW_STATE_DIR="+filepath.Join(home, ".openclaw"),
		"OPENCLAW_CONFIG_PATH=", "OPENCLAW_PROFILE=", "NO_COLOR=1", "BRAVE_API_KEY=", "GEMINI_API_KEY=",
		"PERPLEXITY_API_KEY=", "OPENROUTER_API_KEY=", "XAI_API_KEY=", "KIMI_API_KEY=", "MOONSHOT_API_KEY=")
	s := startPTY(t, cmd)
	defer s.f.Close()
	s.expect("Web search lets your agent look things up online")
	s.expect("Enable web_search? (y/N)")
	s.send("y")
	s.expect("Choose web search provider:")
	s.expect("Provider [1]: ")
	s.send("1")
	s.expect("Brave Search API key (paste it here; leave blank to use BRAVE_API_KEY) [BSA...]: ")
	s.send("BSA-secret-typed")
	s.expect("Test the key now? (Y/n)")
	s.send("")
	s.expect("Key works: Brave Search answered (1 result(s)).")
	s.expect("Enable web_fetch (keyless HTTP fetch)? (Y/n)")
	s.send("y")
	s.expect("Configure complete.")
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit: %v\n%s", err, s.output())
	}
	if strings.Contains(s.output(), "BSA-secret-typed") {
		t.Errorf("the key was echoed:\n%s", s.output())
	}
	c := readCfg(t, home)
	if c.Get("tools.web.search.apiKey").String() != "BSA-secret-typed" || c.Get("tools.web.search.provider").String() != "brave" ||
		!c.Get("tools.web.search.enabled").Bool() || !c.Get("tools.web.fetch.enabled").Bool() {
		t.Fatalf("config %s", c.Raw)
	}
}
