package commands

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// IOStreams is where output goes and how it may look, decided once per
// process (as gh's iostreams): which streams are terminals, whether colour
// is on for each, and the terminal width.
type IOStreams struct {
	In          io.Reader
	Out, ErrOut io.Writer

	outTTY, errTTY     bool
	colorOut, colorErr bool
}

// newIOStreams detects terminals and applies the colour rules: --no-color
// always wins; then CLICOLOR_FORCE (non-empty, not "0") forces colour;
// then NO_COLOR, CLICOLOR=0 or TERM=dumb turn it off; otherwise colour is
// on for a stream that is a terminal. JSON output is never coloured.
func newIOStreams(in io.Reader, out, errOut io.Writer, getenv func(string) string, noColorFlag bool) *IOStreams {
	s := &IOStreams{In: in, Out: out, ErrOut: errOut, outTTY: isTerminal(out), errTTY: isTerminal(errOut)}
	forced := getenv("CLICOLOR_FORCE") != "" && getenv("CLICOLOR_FORCE") != "0"
	disabled := getenv("NO_COLOR") != "" || getenv("CLICOLOR") == "0" || getenv("TERM") == "dumb"
	decide := func(tty bool) bool {
		switch {
		case noColorFlag:
			return false
		case forced:
			return true
		case disabled:
			return false
		}
		return tty
	}
	s.colorOut, s.colorErr = decide(s.outTTY), decide(s.errTTY)
	return s
}

// IsStdoutTTY reports whether stdout is a terminal (human output).
func (s *IOStreams) IsStdoutTTY() bool { return s.outTTY }

// ColorEnabled reports whether stdout may be coloured.
func (s *IOStreams) ColorEnabled() bool { return s.colorOut }

// TerminalWidth is the width of the stdout terminal, 80 when unknown.
func (s *IOStreams) TerminalWidth() int {
	if f, ok := s.Out.(*os.File); ok && s.outTTY {
		if ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ); err == nil && ws.Col > 0 {
			return int(ws.Col)
		}
	}
	return 80
}

// Palette returns how output to stdout or stderr may look: colour
// functions that return the text unchanged when colour is off, and for a
// stdout terminal its width (tables are cut to fit).
func (s *IOStreams) Palette(stderr bool) Palette {
	if stderr {
		return Palette{on: s.colorErr}
	}
	p := Palette{on: s.colorOut}
	if s.outTTY {
		p.Width = s.TerminalWidth()
	}
	return p
}

// Palette colours text with ANSI SGR codes when on. Width is the terminal
// width to fit, 0 for none.
type Palette struct {
	on    bool
	Width int
}

func (p Palette) wrap(code, s string) string {
	if !p.on || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func (p Palette) Bold(s string) string   { return p.wrap("1", s) }
func (p Palette) Red(s string) string    { return p.wrap("31", s) }
func (p Palette) Green(s string) string  { return p.wrap("32", s) }
func (p Palette) Yellow(s string) string { return p.wrap("33", s) }
func (p Palette) Gray(s string) string   { return p.wrap("90", s) }

// Status colours a status word: green for good, yellow for warnings, red
// for failures; other words stay plain.
func (p Palette) Status(s string) string {
	switch s {
	case "ok", "allowed", "pass", "reachable":
		return p.Green(s)
	case "warn", "warning", "skipped":
		return p.Yellow(s)
	case "removed", "fail", "failed", "error", "not ok", "unreachable", "denied":
		return p.Red(s)
	}
	return s
}
