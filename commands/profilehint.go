package commands

import "strings"

// profileFlags is the --profile NAME / --dev this command line used (with
// a trailing space), "" for the default instance: a hint that names an
// openclaw command repeats it, or the command it suggests would reach
// another instance (another state dir and port).
func (r *runtime) profileFlags() string {
	if r.paths == nil {
		return ""
	}
	switch {
	case r.paths.Dev:
		return "--dev "
	case r.paths.Profile != "":
		return "--profile " + r.paths.Profile + " "
	}
	return ""
}

// withProfile rewrites each "`openclaw CMD" hint in msg as "`openclaw
// --profile NAME CMD" (or --dev).
func (r *runtime) withProfile(msg string) string {
	f := r.profileFlags()
	if f == "" {
		return msg
	}
	return strings.ReplaceAll(msg, "`openclaw ", "`openclaw "+f)
}
