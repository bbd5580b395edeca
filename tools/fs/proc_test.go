package fs_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/tools"
)

// The test binary doubles as a one-shot file-tool process, so the
// reliability tests run the tools in real separate processes (under
// `ulimit -f`, killed with SIGKILL) exactly as `openclaw edit` would.
//
//	FS_HELPER=invoke FS_HELPER_TOOL=edit FS_HELPER_PARAMS=<file> FS_HELPER_WS=<dir>
//	FS_HELPER=writeloop FS_HELPER_WS=<dir>  (writes big.txt forever, alternating two contents)
func TestMain(m *testing.M) {
	if mode := os.Getenv("FS_HELPER"); mode != "" {
		os.Exit(helperMain(mode))
	}
	os.Exit(m.Run())
}

func helperMain(mode string) int {
	ws := os.Getenv("FS_HELPER_WS")
	env := &tools.Env{Config: config.Empty(), StateDir: ws, Workspace: ws}
	ctx := context.Background()
	switch mode {
	case "invoke":
		var lim syscall.Rlimit
		if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &lim); err == nil {
			fmt.Printf("fsize=%d\n", lim.Cur)
		}
		params, err := os.ReadFile(os.Getenv("FS_HELPER_PARAMS"))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		out, err := tools.Invoke(ctx, env, tools.Call{ID: os.Getenv("FS_HELPER_TOOL"), Args: params})
		if err != nil {
			fmt.Fprintf(os.Stderr, "error: %v\n", err)
			return tools.AsError(err).ExitCode()
		}
		fmt.Printf("%s\n", out)
		return 0
	case "writeloop":
		w := bufio.NewWriter(os.Stdout)
		for i := 0; ; i++ {
			params := fmt.Sprintf(`{"path":"big.txt","content":%q}`, loopContent(i%2))
			fmt.Fprintf(w, "round %d\n", i)
			w.Flush()
			if _, err := tools.Invoke(ctx, env, tools.Call{ID: "write", Args: []byte(params)}); err != nil {
				fmt.Fprintf(os.Stderr, "error: %v\n", err)
				return 1
			}
		}
	}
	fmt.Fprintf(os.Stderr, "unknown helper mode %q\n", mode)
	return 2
}

// loopContent is one of the two complete versions the write loop writes:
// 1 MiB of lines, so a kill can land in the middle of a write.
func loopContent(which int) string {
	line := strings.Repeat(string(rune('A'+which)), 63) + "\n"
	return strings.Repeat(line, 16*1024)
}

// helper returns a command running the test binary in helper mode.
func helper(t testing.TB, mode, ws string, env ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	// Under -race each process sleeps 1 s at exit (atexit_sleep_ms) so late
	// goroutines can report; the kill loops start dozens of helpers.
	quick := "GORACE=" + strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0")
	cmd.Env = append(os.Environ(), append([]string{"FS_HELPER=" + mode, "FS_HELPER_WS=" + ws, quick}, env...)...)
	return cmd
}
