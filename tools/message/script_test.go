package message_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/openclaw-go/openclaw/commands"
	"github.com/openclaw-go/openclaw/porttest"
	_ "github.com/openclaw-go/openclaw/tools/all"
)

// TestMain lets the scripts run the real CLI (this test binary, with every
// family linked) as `openclaw`, in separate processes.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"openclaw": func() { os.Exit(commands.Main(os.Args, os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs testdata/message/script/*.txtar: the CLI and the
// gateway's send/message.action against a local Telegram Bot API stand-in.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("..", "..", "testdata", "message", "script"),
		RequireExplicitExec: true,
		Setup: func(e *testscript.Env) error {
			port, err := porttest.Pick()
			if err != nil {
				return err
			}
			e.Setenv("GW_PORT", strconv.Itoa(port))
			e.Setenv("HOME", e.WorkDir)
			e.Setenv("OPENCLAW_STATE_DIR", filepath.Join(e.WorkDir, ".openclaw"))
			e.Setenv("NO_COLOR", "1")
			e.Setenv("TELEGRAM_BOT_TOKEN", "")
			e.Setenv("DISCORD_BOT_TOKEN", "")
			e.Setenv("SLACK_BOT_TOKEN", "")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"telegram":  cmdTelegram,
			"waitready": cmdWaitReady,
		},
	})
}

// telegram: start a Bot API stand-in for this script (token 123:ABC),
// write $HOME/.openclaw/openclaw.json pointing channels.telegram at it,
// and log each call to $WORK/tg.log as "method chat_id text|caption files".
func cmdTelegram(ts *testscript.TestScript, neg bool, args []string) {
	logPath := ts.MkAbs("tg.log")
	var mu sync.Mutex
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		method, ok := strings.CutPrefix(r.URL.Path, "/bot123:ABC/")
		if !ok {
			w.WriteHeader(401)
			io.WriteString(w, `{"ok":false,"error_code":401,"description":"Unauthorized"}`)
			return
		}
		p := map[string]any{}
		var files []string
		if strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/") {
			if err := r.ParseMultipartForm(8 << 20); err == nil {
				for k, v := range r.MultipartForm.Value {
					p[k] = v[0]
				}
				for k, fh := range r.MultipartForm.File {
					files = append(files, fmt.Sprintf("%s=%s:%d", k, fh[0].Filename, fh[0].Size))
				}
			}
		} else {
			dec := json.NewDecoder(r.Body)
			dec.UseNumber()
			dec.Decode(&p)
		}
		mu.Lock()
		n++
		id := n
		f, err := os.OpenFile(logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			text := p["text"]
			if text == nil {
				text = p["caption"]
			}
			fmt.Fprintf(f, "%s %v %v %s\n", method, p["chat_id"], text, strings.Join(files, ","))
			f.Close()
		}
		mu.Unlock()
		switch method {
		case "getMe":
			io.WriteString(w, `{"ok":true,"result":{"id":42,"is_bot":true,"first_name":"Claw","username":"claw_bot"}}`)
		case "sendMessage", "sendPhoto", "sendDocument", "sendPoll":
			if p["chat_id"] == "@readonly" {
				w.WriteHeader(403)
				io.WriteString(w, `{"ok":false,"error_code":403,"description":"Forbidden: bot was kicked from the channel chat"}`)
				return
			}
			json.NewEncoder(w).Encode(map[string]any{"ok": true, "result": map[string]any{"message_id": 1000 + id, "chat": map[string]any{"id": p["chat_id"]}}})
		default:
			io.WriteString(w, `{"ok":true,"result":true}`)
		}
	}))
	ts.Defer(srv.Close)
	ts.Setenv("TG_URL", srv.URL)
	dir := filepath.Join(ts.Getenv("HOME"), ".openclaw")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		ts.Fatalf("%v", err)
	}
	cfg := fmt.Sprintf(`{"channels":{"telegram":{"botToken":"123:ABC","apiBaseUrl":%q,
		"accounts":{"alerts":{"botToken":"999:BAD"}}}}}`, srv.URL)
	if err := os.WriteFile(filepath.Join(dir, "openclaw.json"), []byte(cfg), 0o600); err != nil {
		ts.Fatalf("%v", err)
	}
}

// waitready PORT: until a gateway on 127.0.0.1:PORT answers /readyz.
func cmdWaitReady(ts *testscript.TestScript, neg bool, args []string) {
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get("http://127.0.0.1:" + args[0] + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	ts.Fatalf("gateway on port %s not ready after 15s", args[0])
}
