package cron_test

import (
	"bufio"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/commands"
	"github.com/openclaw-go/openclaw/porttest"
)

// TestMain lets the scripts run the real CLI (this test binary, with every
// family linked) as `openclaw`, in separate processes, as a shell would.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"openclaw": func() { os.Exit(commands.Main(os.Args, os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs testdata/cron/script/*.txtar against real gateways:
// an `every 2s` job running in real time, and a gateway killed with
// SIGKILL in the middle of a run.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("..", "..", "testdata", "cron", "script"),
		RequireExplicitExec: true,
		Setup: func(e *testscript.Env) error {
			for _, name := range []string{"GW_PORT", "HANG_PORT"} {
				port, err := porttest.Pick()
				if err != nil {
					return err
				}
				e.Setenv(name, strconv.Itoa(port))
			}
			e.Setenv("HOME", e.WorkDir)
			e.Setenv("OPENCLAW_STATE_DIR", filepath.Join(e.WorkDir, ".openclaw"))
			e.Setenv("NO_COLOR", "1")
			e.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"waitready":  cmdWaitReady,
			"jsonenv":    cmdJSONEnv,
			"poll":       cmdPoll,
			"hangserver": cmdHangServer,
		},
	})
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

// jsonenv NAME PATH: NAME = the gjson PATH of the last command's stdout.
func cmdJSONEnv(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: jsonenv NAME PATH")
	}
	v := gjson.Get(ts.ReadFile("stdout"), args[1])
	if !v.Exists() {
		ts.Fatalf("no %s in %s", args[1], ts.ReadFile("stdout"))
	}
	ts.Setenv(args[0], v.String())
}

// poll DURATION PATH REGEXP command args...: run the command until the
// gjson PATH of its stdout matches REGEXP (at most DURATION).
func cmdPoll(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 4 {
		ts.Fatalf("usage: poll DURATION PATH REGEXP command args...")
	}
	d, err := time.ParseDuration(args[0])
	if err != nil {
		ts.Fatalf("poll: %v", err)
	}
	re := regexp.MustCompile(args[2])
	deadline := time.Now().Add(d)
	for {
		err := ts.Exec(args[3], args[4:]...)
		got := gjson.Get(ts.ReadFile("stdout"), args[1]).String()
		if err == nil && re.MatchString(got) {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("poll: after %s, %s is %q (want %s); last error %v", d, args[1], got, args[2], err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// hangserver PORT: an HTTP server on 127.0.0.1:PORT that reads each
// request and never answers (a webhook that hangs a run).
func cmdHangServer(ts *testscript.TestScript, neg bool, args []string) {
	l, err := net.Listen("tcp", "127.0.0.1:"+args[0])
	if err != nil {
		ts.Fatalf("hangserver: %v", err)
	}
	var conns []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
			go func() { _, _ = bufio.NewReader(c).ReadString(0) }()
		}
	}()
	ts.Defer(func() {
		l.Close()
		for _, c := range conns {
			c.Close()
		}
	})
}
