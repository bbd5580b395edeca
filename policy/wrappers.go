package policy

import (
	"path/filepath"
	"strings"
)

// Wrappers run another program: allowlisting the wrapper (approving `env
// FOO=1 make` stored /usr/bin/env) would allow every program behind it.
// Transparent wrappers are unwrapped, so matching and allow-always see the
// program they run (spec §1.8 step 7: env, nohup, timeout, nice, ...);
// wrappers whose target cannot be read off argv (sudo, xargs, shells) are
// refused: they match no entry but "*" and are never stored.

// unwrappers parse one transparent wrapper's options; they return the
// index of the wrapped program's name, len(argv) when there is none, or
// -1 when argv cannot be vouched for.
var unwrappers = map[string]func(argv []string) int{
	"env":     unwrapEnv,
	"nice":    getoptSkip("", "n", "ignore-niceness", "adjustment", true, 0),
	"nohup":   getoptSkip("", "", "", "", false, 0),
	"timeout": getoptSkip("v", "sk", "preserve-status foreground verbose", "signal kill-after", false, 1),
	"stdbuf":  getoptSkip("", "ioe", "", "input output error", false, 0),
	"setsid":  getoptSkip("cfw", "", "ctty fork wait", "", false, 0),
	"command": getoptSkip("pvV", "", "", "", false, 0),
	"exec":    getoptSkip("cl", "a", "", "", false, 0),
}

// builtinWrappers are shell builtins: typed bare, the shell runs them,
// whatever PATH holds.
var builtinWrappers = map[string]bool{"command": true, "exec": true}

// refusedWrappers run programs argv does not name (stdin, a script, another
// user): never unwrapped, never allowlisted.
var refusedWrappers = map[string]bool{
	"sudo": true, "doas": true, "su": true, "runuser": true, "xargs": true, "parallel": true, "chroot": true,
	"nsenter": true, "unshare": true, "setpriv": true, "watch": true, "strace": true, "ltrace": true, "time": true,
	"ionice": true, "chrt": true, "taskset": true, "flock": true, "busybox": true,
	"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "fish": true, "csh": true, "tcsh": true,
}

// maxWrapDepth bounds a wrapper chain; a longer one is refused.
const maxWrapDepth = 8

// depth8 reports whether the word at start is still a wrapper (the chain
// was longer than maxWrapDepth).
func depth8(seg Segment, start int, trusted func(string) bool) bool {
	name := seg.Argv[start]
	base := filepath.Base(name)
	return builtinWrappers[name] || (trusted(name) && (unwrappers[base] != nil || refusedWrappers[base]))
}

// Unwrap finds the program a segment runs through its wrappers. start is
// the index in seg.Argv of that program's name (0 when argv[0] is no
// wrapper, or a wrapper with nothing to run); refused names the wrapper
// that cannot be vouched for ("" when none). trusted says whether a
// wrapper name resolves to the system's binary (a ./env script is no
// wrapper: it is what runs). Refused wrappers are refused wherever they
// live.
func Unwrap(seg Segment, trusted func(name string) bool) (start int, refused string) {
	for depth := 0; depth < maxWrapDepth; depth++ {
		name := seg.Argv[start]
		base := filepath.Base(name)
		if refusedWrappers[base] {
			return start, base // wherever it lives
		}
		isBuiltin := builtinWrappers[name]
		un := unwrappers[base]
		if un == nil || (builtinWrappers[base] && !isBuiltin) || (!isBuiltin && !trusted(name)) {
			return start, ""
		}
		if len(seg.Expands) != len(seg.Argv) {
			return start, base
		}
		n := un(seg.Argv[start:])
		if n < 0 {
			return start, base
		}
		// The wrapper's own words and the program's name must be what the
		// wrapper sees: an expansion could become an option, an
		// assignment or another program.
		for i := start; i <= start+n && i < len(seg.Argv); i++ {
			if seg.Expands[i] {
				return start, base
			}
		}
		if start+n >= len(seg.Argv) {
			return start, "" // nothing wrapped: the wrapper is the program
		}
		start += n
	}
	if start < len(seg.Argv) && depth8(seg, start, trusted) {
		return start, "wrapper"
	}
	return start, ""
}

// unwrapEnv skips env's options and NAME=VALUE assignments; an assignment
// of a refused variable, or -S (a string split into a command), refuses.
func unwrapEnv(argv []string) int {
	n, _ := scanEnv(argv)
	return n
}

// scanEnv is unwrapEnv that also returns the names env assigns.
func scanEnv(argv []string) (int, []string) {
	var keys []string
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "--":
			return i + 1, keys
		case a == "-" || a == "-i" || a == "-0" || a == "-v" || a == "--ignore-environment" || a == "--null" || a == "--debug":
		case a == "-u" || a == "-C" || a == "--unset" || a == "--chdir":
			i++
		case strings.HasPrefix(a, "--unset=") || strings.HasPrefix(a, "--chdir=") ||
			(len(a) > 2 && (strings.HasPrefix(a, "-u") || strings.HasPrefix(a, "-C"))):
		case strings.HasPrefix(a, "-"):
			return -1, nil // -S/--split-string and anything unknown
		case strings.Contains(a, "="):
			k, _, _ := strings.Cut(a, "=")
			if k == "" || EnvKeyBlocked(k) || strings.EqualFold(k, "PATH") {
				return -1, nil
			}
			keys = append(keys, k)
		default:
			return i, keys
		}
	}
	return len(argv), keys
}

// WrapperEnvKeys are the variables the env wrappers before argv[start]
// set (`env GIT_DIR=x git status` sets GIT_DIR for git): in allowlist mode
// they are overrides like the call's env (see EntryAllowsEnv). start is
// what Unwrap returned for argv.
func WrapperEnvKeys(argv []string, start int) []string {
	var keys []string
	for i := 0; i < start && i < len(argv); {
		if filepath.Base(argv[i]) != "env" {
			i++
			continue
		}
		n, k := scanEnv(argv[i:])
		keys = append(keys, k...)
		if n <= 0 {
			break
		}
		i += n
	}
	return keys
}

// getoptSkip builds an unwrapper for a wrapper with the given short flags,
// short value options, long flags and long value options, then operands
// positional words (timeout's DURATION) before the program. countShort:
// -NUM is an option (nice -10).
func getoptSkip(flags, values, longFlags, longValues string, countShort bool, operands int) func([]string) int {
	lf, lv := strings.Fields(longFlags), strings.Fields(longValues)
	isLong := func(list []string, name string) bool {
		for _, l := range list {
			if l == name || (name != "" && strings.HasPrefix(l, name)) {
				return true
			}
		}
		return false
	}
	return func(argv []string) int {
		i := 1
		for ; i < len(argv); i++ {
			a := argv[i]
			if a == "--" {
				i++
				break
			}
			if !strings.HasPrefix(a, "-") || a == "-" {
				break
			}
			if strings.HasPrefix(a, "--") {
				name, _, hasValue := strings.Cut(a[2:], "=")
				switch {
				case isLong(lv, name) && !isLong(lf, name):
					if !hasValue {
						i++
					}
				case isLong(lf, name) && !isLong(lv, name) && !hasValue:
				default:
					return -1 // unknown, ambiguous, --help, --version
				}
				continue
			}
			if countShort && strings.Trim(a[1:], "0123456789") == "" {
				continue
			}
			for j := 1; j < len(a); j++ {
				switch {
				case strings.IndexByte(values, a[j]) >= 0:
					if j == len(a)-1 {
						i++
					}
					j = len(a)
				case strings.IndexByte(flags, a[j]) >= 0:
				default:
					return -1
				}
			}
		}
		i += operands
		return min(i, len(argv))
	}
}
