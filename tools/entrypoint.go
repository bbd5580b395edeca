package tools

import (
	"io"
	"strings"
	"sync"
)

// Entrypoints are hidden subcommands (`openclaw __<name>`) that a family
// runs as a helper process of its own, such as the browser's event
// recorder: the family re-executes the binary with the name as its first
// argument, and the CLI runs the entrypoint before it builds any command.
// They are not commands: no help, no completion, no flags, no config, and
// nothing becomes one by an environment variable.

// EntrypointMain runs one entrypoint and returns its exit code.
type EntrypointMain func(args []string, stdin io.Reader, stdout, stderr io.Writer) int

var (
	entryMu     sync.Mutex
	entrypoints = map[string]EntrypointMain{}
)

// EntrypointPrefix starts every entrypoint's argument.
const EntrypointPrefix = "__"

// RegisterEntrypoint adds `openclaw __<name>`, from an init function. It
// panics on an empty or duplicate name (a programming error).
func RegisterEntrypoint(name string, main EntrypointMain) {
	entryMu.Lock()
	defer entryMu.Unlock()
	if name == "" || main == nil || strings.HasPrefix(name, EntrypointPrefix) {
		panic("tools.RegisterEntrypoint: needs a name without the __ prefix and a main")
	}
	if _, dup := entrypoints[name]; dup {
		panic("tools.RegisterEntrypoint: duplicate entrypoint " + name)
	}
	entrypoints[name] = main
}

// EntrypointArg is the first argument that runs the named entrypoint.
func EntrypointArg(name string) string { return EntrypointPrefix + name }

// LookupEntrypoint returns the entrypoint that arg (`__name`) names, if any.
func LookupEntrypoint(arg string) (EntrypointMain, bool) {
	name, ok := strings.CutPrefix(arg, EntrypointPrefix)
	if !ok {
		return nil, false
	}
	entryMu.Lock()
	defer entryMu.Unlock()
	m, ok := entrypoints[name]
	return m, ok
}
