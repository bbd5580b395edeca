package policy

import (
	"path/filepath"
	"slices"
	"strings"
)

// DefaultSafeBins are the stdin-to-stdout filters allowed in allowlist mode
// without an entry: the classic list without jq (spec §1.10: jq is never a
// safe bin; `jq -n env` prints the environment, and jq reads files).
var DefaultSafeBins = []string{"grep", "cut", "sort", "uniq", "head", "tail", "tr", "wc"}

// A safe bin is a stdin-to-stdout filter. Its argv is checked against the
// bin's profile (the GNU coreutils/grep options), stricter than the
// original's denied-flag lists: every option must be known (long options
// matched after GNU abbreviation, so --recur is --recursive and --outp is
// --output; combined short flags split, so -uo is -u -o), no option may
// name a file or a program, there are no file operands, and no word may be
// changed by the shell ($VAR, globs, ~): what was checked is what runs.
// A bin without a profile (jq, awk, sed, anything configured) is never
// safe: fail closed.

// optKind is what an option does with a value.
type optKind int

const (
	optFlag     optKind = iota // no value
	optValue                   // takes a value (not a file): -n 5, --lines=5
	optOptional                // value only as --opt=value
	optDenied                  // names a file or program, or reads files
)

// binProfile is one bin's options and how many non-file operands it takes.
type binProfile struct {
	short         map[byte]optKind
	long          map[string]optKind
	maxPositional int
	// globOperands: operands are character sets, never file names, so a
	// glob character in them is the bin's own syntax (tr '[:upper:]').
	globOperands bool
	// countShort: -NUM is a count (head -5, tail -20), the obsolete form.
	countShort bool
}

func shorts(flags, values, denied string) map[byte]optKind {
	m := map[byte]optKind{}
	for _, set := range []struct {
		s string
		k optKind
	}{{flags, optFlag}, {values, optValue}, {denied, optDenied}} {
		for i := 0; i < len(set.s); i++ {
			m[set.s[i]] = set.k
		}
	}
	return m
}

func longs(kind optKind, names string, into map[string]optKind) map[string]optKind {
	if into == nil {
		into = map[string]optKind{"help": optFlag, "version": optFlag}
	}
	for _, n := range strings.Fields(names) {
		into[n] = kind
	}
	return into
}

func profile(short map[byte]optKind, flags, values, optional, denied string, maxPos int) *binProfile {
	l := longs(optFlag, flags, nil)
	longs(optValue, values, l)
	longs(optOptional, optional, l)
	longs(optDenied, denied, l)
	return &binProfile{short: short, long: l, maxPositional: maxPos}
}

// safeBinProfiles are the bins that can be safe, with GNU's full option
// lists (so an abbreviation resolves as the real bin resolves it).
var safeBinProfiles = map[string]*binProfile{
	"head": profile(shorts("qvz", "cn", ""), "quiet silent verbose zero-terminated", "bytes lines", "", "", 0),
	"tail": profile(shorts("qvz", "cns", "fF"), "quiet silent verbose zero-terminated",
		"bytes lines sleep-interval max-unchanged-stats", "", "follow retry pid", 0),
	"wc": profile(shorts("cmlLw", "", ""), "bytes chars lines max-line-length words", "total", "", "files0-from", 0),
	"cut": profile(shorts("nsz", "bcdf", ""), "complement only-delimited zero-terminated",
		"bytes characters delimiter fields output-delimiter", "", "", 0),
	"sort": profile(shorts("bdfghiMnRrVcCmsuz", "ktS", "oT"),
		"ignore-leading-blanks dictionary-order ignore-case general-numeric-sort human-numeric-sort ignore-nonprinting "+
			"month-sort numeric-sort random-sort reverse version-sort merge stable unique zero-terminated debug",
		"sort key field-separator buffer-size parallel batch-size", "check",
		"compress-program output temporary-directory random-source files0-from", 0),
	"uniq": profile(shorts("cdDiuz", "fsw", ""), "count repeated unique ignore-case zero-terminated",
		"skip-fields skip-chars check-chars", "all-repeated group", "", 0),
	"tr":   {short: shorts("cCdst", "", ""), long: longs(optFlag, "complement delete squeeze-repeats truncate-set1", nil), maxPositional: 2, globOperands: true},
	"grep": grepProfile,
}

func init() {
	safeBinProfiles["head"].countShort = true
	safeBinProfiles["tail"].countShort = true
}

var grepProfile = profile(shorts("EFGPiyvwxcoqsbnHhZzLlTUaI", "emABC", "rRfdD"),
	"extended-regexp fixed-strings basic-regexp perl-regexp ignore-case no-ignore-case word-regexp line-regexp null-data "+
		"no-messages invert-match byte-offset line-number line-buffered with-filename no-filename only-matching quiet "+
		"silent text files-without-match files-with-matches count initial-tab null no-group-separator",
	"regexp max-count label binary-files before-context after-context context group-separator",
	"color colour",
	"file recursive dereference-recursive directories devices include exclude exclude-from exclude-dir", 0)

// SafeBin reports whether a segment is a safe stdin filter: a bin listed
// in bins and profiled, found in a trusted dir, whose argv passes the
// profile (argv shape only, no filesystem checks).
func SafeBin(seg Segment, bins, trustedDirs []string) bool {
	if seg.Resolved == "" || len(seg.Argv) == 0 {
		return false
	}
	name := filepath.Base(seg.Resolved)
	prof := safeBinProfiles[name]
	if prof == nil || !slices.Contains(bins, name) || !slices.Contains(trustedDirs, filepath.Dir(seg.Resolved)) {
		return false
	}
	// The name typed must be the bin resolved (no alias games) and, like
	// every word, unchanged by the shell.
	for i, w := range seg.Argv {
		if len(seg.Expands) != len(seg.Argv) || seg.Expands[i] && !(prof.globOperands && i > 0 && !strings.ContainsAny(w, "$~")) {
			return false
		}
		if strings.ContainsAny(w, "$`\x00") {
			return false
		}
	}
	return prof.check(seg.Argv[1:])
}

// check walks the args as GNU getopt does (options may follow operands;
// "--" ends them).
func (p *binProfile) check(args []string) bool {
	positional := 0
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			positional += len(args) - i - 1
			i = len(args)
		case strings.HasPrefix(a, "--"):
			name, value, hasValue := strings.Cut(a[2:], "=")
			kind, ok := p.longOption(name)
			switch {
			case !ok || kind == optDenied:
				return false
			case kind == optFlag && hasValue:
				return false
			case kind == optValue && !hasValue:
				if i+1 >= len(args) {
					return false
				}
				i++ // the value, not an operand
			}
			_ = value
		case p.countShort && len(a) > 1 && a[0] == '-' && strings.Trim(a[1:], "0123456789") == "":
		case strings.HasPrefix(a, "-") && a != "-":
			// Combined short flags: each letter in turn; a value-taking one
			// takes the rest of the word, or the next word.
			for j := 1; j < len(a); j++ {
				kind, ok := p.short[a[j]]
				if !ok || kind == optDenied || kind == optOptional {
					return false
				}
				if kind == optValue {
					if j == len(a)-1 {
						if i+1 >= len(args) {
							return false
						}
						i++
					}
					break
				}
			}
		default:
			positional++ // an operand: for these bins, a file (or "-", stdin)
		}
	}
	return positional <= p.maxPositional
}

// longOption resolves a long option name as getopt_long does: an exact
// name, else the one option it abbreviates; ambiguous or unknown is not
// an option this profile allows.
func (p *binProfile) longOption(name string) (optKind, bool) {
	if name == "" {
		return 0, false
	}
	if k, ok := p.long[name]; ok {
		return k, true
	}
	var hit string
	for full := range p.long {
		if strings.HasPrefix(full, name) {
			if hit != "" && p.long[hit] != p.long[full] {
				return 0, false // ambiguous (getopt refuses it too)
			}
			if hit == "" || p.long[full] == optDenied {
				hit = full
			}
		}
	}
	if hit == "" {
		return 0, false
	}
	return p.long[hit], true
}
