package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Extra binds are judged as written and through their symlinked parents
// (the leaf need not exist): a blocked path or one outside the allowed
// roots is refused, dangerouslyAllowExternalBindSources lifts only the
// roots check, and the sandbox's own mount points are not targets.
func TestCheckBinds(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	os.Symlink("/etc", filepath.Join(ws, "etc-link"))
	os.Symlink(outside, filepath.Join(ws, "out-link"))
	os.Mkdir(filepath.Join(ws, "data"), 0o755)
	for _, c := range []struct {
		bind     string
		external bool
		want     string // "" accepted
	}{
		{ws + "/data:/data:ro", false, ""},
		{ws + "/etc-link/new-file:/x", false, "under /etc"},
		{ws + "/etc-link/new-file:/x", true, "under /etc"},
		{ws + "/out-link/sub:/x", false, "outside the agent workspace"},
		{ws + "/out-link/sub:/x", true, ""},
		{"/var/run/docker.sock:/sock", true, "under /var/run"},
		{"/proc/1:/p", true, "under /proc"},
		{ws + "/data:/workspace/data", false, "the sandbox's own mount"},
		{ws + "/data:/agent", false, "the sandbox's own mount"},
	} {
		b, err := parseBind(c.bind)
		if err != nil {
			t.Fatalf("%s: %v", c.bind, err)
		}
		s := Settings{Binds: []Bind{b}, AllowExternal: c.external}
		err = s.CheckBinds(ws, filepath.Join(ws, "sandboxes"))
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s (external %v): refused: %v", c.bind, c.external, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s (external %v): %v, want %q", c.bind, c.external, err, c.want)
		}
	}
	for _, bad := range []string{"relative:/x", "/a", "/a:/b:rx"} {
		if _, err := parseBind(bad); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}
