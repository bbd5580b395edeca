// Patched for openclaw (github.com/openclaw-go/openclaw): package-level work
// moved out of init (sync.OnceValue, or done only when needed); see PATCHED.md.

package proto

import (
	"regexp"
	"strings"
	"sync"
)

// Patched for openclaw: compiled on first use, not in every process's init.
var (
	regAsterisk  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`([^\\])\*`) })
	regBackSlash = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`([^\\])\?`) })
)

// PatternToReg FetchRequestPattern.URLPattern to regular expression.
func PatternToReg(pattern string) string {
	if pattern == "" {
		return ""
	}

	pattern = " " + pattern
	pattern = regAsterisk().ReplaceAllString(pattern, "$1.*")
	pattern = regBackSlash().ReplaceAllString(pattern, "$1.")

	return `\A` + strings.TrimSpace(pattern) + `\z`
}
