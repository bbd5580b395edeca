package commands

import (
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/openclaw-go/openclaw/porttest"
)

// TestMain lets testscript run the real CLI as the `openclaw` command in
// separate processes, exactly as a user's shell would.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"openclaw": func() { os.Exit(Main(os.Args, os.Stdin, os.Stdout, os.Stderr)) },
	})
}

func scriptParams(dir string) testscript.Params {
	return testscript.Params{
		Dir:                 filepath.Join("..", "testdata", "script", dir),
		RequireExplicitExec: true,
		UpdateScripts:       os.Getenv("UPDATE_SCRIPTS") == "1",
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits":     cmdExits,
			"waitready": cmdWaitReady,
			"listen":    cmdListen,
		},
		Setup: func(e *testscript.Env) error {
			port, err := porttest.Pick()
			if err != nil {
				return err
			}
			e.Setenv("GW_PORT", strconv.Itoa(port))
			e.Setenv("HOME", e.WorkDir)
			e.Setenv("OPENCLAW_STATE_DIR", filepath.Join(e.WorkDir, ".openclaw"))
			e.Setenv("NO_COLOR", "1")
			// Under -race every child process sleeps 1 s at exit unless
			// told otherwise; scripts run the binary hundreds of times.
			e.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
			return nil
		},
	}
}

// cmdExits runs a command like exec and checks its exact exit code:
// exits 3 openclaw write x --content y
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE command [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: bad code %q", args[0])
	}
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		got = ee.ExitCode()
	} else if err != nil {
		ts.Fatalf("exits: %v", err)
	}
	if got != want {
		ts.Fatalf("exit code %d, want %d", got, want)
	}
}

// cmdWaitReady waits until a gateway on 127.0.0.1:PORT answers /readyz.
func cmdWaitReady(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: waitready PORT")
	}
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get("http://127.0.0.1:" + args[0] + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	ts.Fatalf("gateway on port %s not ready after 15s", args[0])
}

func TestScriptsCLI(t *testing.T)     { t.Parallel(); testscript.Run(t, scriptParams("cli")) }
func TestScriptsFS(t *testing.T)      { t.Parallel(); testscript.Run(t, scriptParams("fs")) }
func TestScriptsGateway(t *testing.T) { t.Parallel(); testscript.Run(t, scriptParams("gateway")) }
func TestScriptsMemory(t *testing.T)  { t.Parallel(); testscript.Run(t, scriptParams("memory")) }

// cmdListen holds a plain TCP listener (not a gateway) on 127.0.0.1:PORT
// until the script ends: listen PORT
func cmdListen(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: listen PORT")
	}
	l, err := net.Listen("tcp", "127.0.0.1:"+args[0])
	if err != nil {
		ts.Fatalf("listen: %v", err)
	}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	ts.Defer(func() { l.Close() })
}

func TestScriptsMCP(t *testing.T) { t.Parallel(); testscript.Run(t, scriptParams("mcp")) }
