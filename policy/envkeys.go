package policy

import "strings"

// blockedEnv are refused in env overrides for host runs (spec §1.6),
// compared upper-cased: loader and interpreter start-up variables, and the
// shell start-up family, each of which makes the shell (or the program it
// starts) run code named by the caller rather than the command approved.
var blockedEnv = map[string]bool{
	"NODE_OPTIONS": true, "NODE_PATH": true, "PYTHONPATH": true, "PYTHONHOME": true, "PYTHONSTARTUP": true,
	"RUBYLIB": true, "RUBYOPT": true, "PERL5LIB": true, "PERL5OPT": true, "PERLLIB": true, "GCONV_PATH": true,
	"SSLKEYLOGFILE": true, "GREP_OPTIONS": true, "JAVA_TOOL_OPTIONS": true, "_JAVA_OPTIONS": true, "JDK_JAVA_OPTIONS": true,
	// shell start-up: files sourced, options, prompts and traces expanded,
	// word splitting, function and path lookup
	"BASH_ENV": true, "ENV": true, "SHELLOPTS": true, "BASHOPTS": true, "PS0": true, "PS1": true, "PS2": true,
	"PS3": true, "PS4": true, "PROMPT_COMMAND": true, "IFS": true, "BASH_XTRACEFD": true, "BASH_LOADABLES_PATH": true,
	"BASH_COMPAT": true, "CDPATH": true, "GLOBIGNORE": true, "FPATH": true, "ZDOTDIR": true, "HISTFILE": true,
	"INPUTRC": true, "POSIXLY_CORRECT": true, "EXECIGNORE": true, "SHELL": true,
}

// blockedEnvPrefixes are refused families (upper-cased): loader variables
// and exported bash functions (BASH_FUNC_name%% replaces a command).
var blockedEnvPrefixes = []string{"LD_", "DYLD_", "BASH_FUNC_"}

// EnvKeyBlocked reports whether an environment override key is refused
// (compared case-insensitively): in the exec env param and in an `env
// NAME=VALUE` wrapper alike.
func EnvKeyBlocked(k string) bool {
	u := strings.ToUpper(k)
	if blockedEnv[u] {
		return true
	}
	for _, p := range blockedEnvPrefixes {
		if strings.HasPrefix(u, p) {
			return true
		}
	}
	return false
}
