// Package mcptest finds the third-party MCP servers (npm
// @modelcontextprotocol/server-everything and server-filesystem) the MCP
// client tests run against, installing them with
// scripts/install-mcp-test-servers.sh when npm is there and they are not.
// Under CI=true a missing node or npm fails the test (a silent skip would
// hide every MCP client test); elsewhere the test is skipped with a note.
package mcptest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

var (
	once    sync.Once
	binDir  string
	failure string
)

// Bin returns the directory holding mcp-server-everything and
// mcp-server-filesystem, or stops the test (see the package doc).
func Bin(t testing.TB) string {
	t.Helper()
	once.Do(install)
	if failure != "" {
		if os.Getenv("CI") == "true" {
			t.Fatal(failure)
		}
		t.Skip(failure + " (skipping; these tests fail under CI=true)")
	}
	return binDir
}

// Everything is the path of mcp-server-everything.
func Everything(t testing.TB) string { return filepath.Join(Bin(t), "mcp-server-everything") }

// Filesystem is the path of mcp-server-filesystem.
func Filesystem(t testing.TB) string { return filepath.Join(Bin(t), "mcp-server-filesystem") }

func install() {
	if _, err := exec.LookPath("node"); err != nil {
		failure = "node is not installed: the MCP client tests run npm MCP servers (install nodejs and npm)"
		return
	}
	dir := os.Getenv("OPENCLAW_MCP_SERVERS_DIR")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			failure = "no home directory for the MCP test servers: set OPENCLAW_MCP_SERVERS_DIR"
			return
		}
		dir = filepath.Join(home, ".cache", "openclaw-mcp-servers")
	}
	bin := filepath.Join(dir, "node_modules", ".bin")
	if ok(bin) {
		binDir = bin
		return
	}
	if _, err := exec.LookPath("npm"); err != nil {
		failure = "npm is not installed and the MCP test servers are missing: run scripts/install-mcp-test-servers.sh"
		return
	}
	_, file, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(file), "..", "..", "scripts", "install-mcp-test-servers.sh")
	cmd := exec.Command("bash", script)
	cmd.Env = append(os.Environ(), "OPENCLAW_MCP_SERVERS_DIR="+dir)
	if out, err := cmd.CombinedOutput(); err != nil || !ok(bin) {
		failure = "installing the MCP test servers failed (scripts/install-mcp-test-servers.sh): " + string(out)
		return
	}
	binDir = bin
}

func ok(bin string) bool {
	for _, n := range []string{"mcp-server-everything", "mcp-server-filesystem"} {
		if st, err := os.Stat(filepath.Join(bin, n)); err != nil || st.Mode()&0o111 == 0 {
			return false
		}
	}
	return true
}
