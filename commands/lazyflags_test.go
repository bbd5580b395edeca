package commands

import (
	"bytes"
	"strings"
	"testing"
)

// A command line builds the flags and long help of the one top-level
// command it names; help, completion and docs (no command word) get all.
func TestOnlyTheNamedCommandGetsItsFlags(t *testing.T) {
	r := newRuntime(nil, &bytes.Buffer{}, &bytes.Buffer{})
	r.cmdWord = commandWord([]string{"openclaw", "--profile", "x", "read", "a.txt"})
	if r.cmdWord != "read" {
		t.Fatalf("command word %q", r.cmdWord)
	}
	app := r.newApp()
	read, browser := findCommand(app.Commands, "read"), findCommand(app.Commands, "browser")
	if read == nil || browser == nil || len(browser.Subcommands) == 0 {
		t.Fatal("no read or browser command")
	}
	if !commandHasFlag(read, "offset") || read.Description == "" {
		t.Error("read lacks its schema flags or help")
	}
	for _, c := range browser.Subcommands {
		if len(c.Flags) != 0 || c.Description != "" {
			t.Errorf("browser %s was built in full for a read command line", c.Name)
		}
	}
	all := newRuntime(nil, &bytes.Buffer{}, &bytes.Buffer{}).newApp() // no command word: everything
	if b := findCommand(all.Commands, "browser"); b == nil || !commandHasFlag(b.Subcommands[0], "json") {
		t.Error("without a command word the tree is not complete")
	}
	for args, want := range map[string]string{"help read": "read", "--dev devices list": "devices", "--json": "", "": ""} {
		if got := commandWord(append([]string{"openclaw"}, strings.Fields(args)...)); got != want {
			t.Errorf("commandWord(%q) = %q, want %q", args, got, want)
		}
	}
}

// Help for a command still shows its flags (`help X` and `X --help`).
func TestHelpShowsFlagsOfTheNamedCommand(t *testing.T) {
	t.Setenv("OPENCLAW_STATE_DIR", t.TempDir())
	for _, args := range [][]string{{"help", "read"}, {"read", "--help"}, {"help", "devices", "approve"}} {
		var out, errb bytes.Buffer
		if code := Main(append([]string{"openclaw"}, args...), nil, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d %s", args, code, errb.String())
		}
		want := "--offset"
		if args[1] == "devices" {
			want = "--latest"
		}
		if !strings.Contains(out.String(), want) {
			t.Errorf("%v: help lacks %s:\n%s", args, want, out.String())
		}
	}
}
