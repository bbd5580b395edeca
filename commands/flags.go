package commands

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v2"
)

// urfaveFlagString is urfave's own help line for a flag.
var urfaveFlagString = cli.FlagStringer

// zeroDefault matches the "(default: …)" urfave prints for a flag's Go zero
// value: it is not the real default (--json is automatic, --timeout depends
// on the command, serve --port comes from config), so help leaves it out and
// the usage text states the rule.
var zeroDefault = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(` ?\(default: (false|0|0s|"")\)$`) }) // built when help is printed, not at init

// Help lines go through flagString (set once, before any app is built).
func init() { cli.FlagStringer = flagString }

// flagString is urfave's help line without a zero "(default: …)" and with
// urfave's " [$VAR]" suffix only for the variables the usage does not name
// already: the connection flags say "(env OPENCLAW_GATEWAY_TOKEN)"
// themselves, and help printed it twice.
func flagString(f cli.Flag) string {
	s := urfaveFlagString(f)
	var env []string
	if df, ok := f.(cli.DocGenerationFlag); ok {
		env = df.GetEnvVars()
	}
	suffix := ""
	if len(env) > 0 {
		if hint := " [$" + strings.Join(env, ", $") + "]"; strings.HasSuffix(s, hint) {
			s = strings.TrimSuffix(s, hint)
			if rest := unmentioned(s, env); len(rest) > 0 {
				suffix = " [$" + strings.Join(rest, ", $") + "]"
			}
		}
	}
	return zeroDefault().ReplaceAllString(s, "") + suffix
}

// unmentioned is the env vars a flag's usage does not already name (help
// and man pages print each once).
func unmentioned(usage string, env []string) []string {
	var out []string
	for _, e := range env {
		if !strings.Contains(usage, e) {
			out = append(out, e)
		}
	}
	return out
}

// durationValue is a duration flag that also takes plain numbers as
// seconds: --timeout 5, --timeout 5s, --timeout 2m. Its String is a Go
// duration, so c.Duration(name) reads it as for a DurationFlag.
type durationValue time.Duration

func (d *durationValue) Set(s string) error {
	s = strings.TrimSpace(s)
	if secs, err := strconv.ParseFloat(s, 64); err == nil {
		if secs < 0 {
			return fmt.Errorf("must not be negative")
		}
		*d = durationValue(time.Duration(secs * float64(time.Second)))
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("want seconds (5) or a duration (5s, 2m, 1h30m)")
	}
	if v < 0 {
		return fmt.Errorf("must not be negative")
	}
	*d = durationValue(v)
	return nil
}

func (d *durationValue) String() string { return time.Duration(*d).String() }

// fixFlags replaces DurationFlags with flags that accept plain seconds,
// keeping name, aliases, usage, environment variables and default.
func fixFlags(flags []cli.Flag) {
	for i, f := range flags {
		df, ok := f.(*cli.DurationFlag)
		if !ok {
			continue
		}
		v := durationValue(df.Value)
		flags[i] = &cli.GenericFlag{Name: df.Name, Aliases: df.Aliases, Usage: df.Usage, EnvVars: df.EnvVars,
			Hidden: df.Hidden, Category: df.Category, Value: &v}
	}
}

// dashFlag makes Go's flag-package messages name flags as users type them:
// "flag -timeout" becomes "flag --timeout" (one-letter flags keep one dash).
var dashFlag = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(flag(?: provided but not defined:)?) -([A-Za-z0-9][A-Za-z0-9-]+)`)
})

func dashFlags(msg string) string {
	return dashFlag().ReplaceAllString(msg, "$1 --$2")
}

// flagNames is f.Names() without urfave's regexp pass over each name: the
// argument normaliser asks it for every flag of the command on every run,
// and our flags' names never carry the ", alias" form that pass strips.
func flagNames(f cli.Flag) []string {
	var name string
	var aliases []string
	switch f := f.(type) {
	case *cli.BoolFlag:
		name, aliases = f.Name, f.Aliases
	case *cli.StringFlag:
		name, aliases = f.Name, f.Aliases
	case *cli.IntFlag:
		name, aliases = f.Name, f.Aliases
	case *cli.DurationFlag:
		name, aliases = f.Name, f.Aliases
	default:
		return f.Names()
	}
	names := append([]string{name}, aliases...)
	for _, n := range names {
		if strings.ContainsAny(n, ", ") {
			return f.Names()
		}
	}
	return names
}
