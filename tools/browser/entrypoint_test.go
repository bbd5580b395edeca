package browser_test

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// cli runs this test binary as `openclaw ARGS…` with extra env and stdin.
func cli(t *testing.T, stdin string, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), "OPENCLAW_TEST_CLI=1", "OPENCLAW_STATE_DIR="+t.TempDir(), "HOME="+t.TempDir()), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// TestRecorderIsAHiddenSubcommand: the recorder runs only as `openclaw
// __browser-recorder` (its spec on stdin), is named in neither help nor
// completion, and an environment variable no longer turns an ordinary
// command into one (it used to be caught by a package init).
func TestRecorderIsAHiddenSubcommand(t *testing.T) {
	_, errs, code := cli(t, "not json", nil, "__browser-recorder")
	if code != 2 || !strings.Contains(errs, "browser recorder: spec on stdin") {
		t.Errorf("__browser-recorder with a bad spec: exit %d %s", code, errs)
	}
	out, errs, code := cli(t, "", []string{"OPENCLAW_BROWSER_RECORDER={}"}, "browser", "--help")
	if code != 0 || strings.Contains(errs, "recorder") || !strings.Contains(out, "snapshot") {
		t.Errorf("browser --help with the old recorder variable set: exit %d\n%s%s", code, out, errs)
	}
	if strings.Contains(out, "__browser-recorder") {
		t.Errorf("help names the hidden subcommand:\n%s", out)
	}
	top, _, _ := cli(t, "", nil, "--help")
	comp, _, _ := cli(t, "", nil, "--generate-bash-completion")
	if !strings.Contains(comp, "browser") || strings.Contains(top, "__browser") || strings.Contains(comp, "__") {
		t.Errorf("help or completion names the hidden subcommand:\n%s\n%s", top, comp)
	}
}
