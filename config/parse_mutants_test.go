package config

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// The nesting guard scans brackets outside strings and comments: brackets
// inside a string or comment never count, real ones always do, however
// the comments and strings around them are written. Every case is parsed
// by ParseJSON5, which must not panic on a document cut short.
func TestParseJSON5NestingGuardSkipsStringsAndComments(t *testing.T) {
	deep := strings.Repeat("[", maxNesting+1) + strings.Repeat("]", maxNesting+1)
	brackets := strings.Repeat("[", 2*maxNesting)
	tests := []struct {
		name    string
		in      string
		tooDeep bool
	}{
		{"brackets in a double-quoted string", `{a: "` + brackets + `"}`, false},
		{"brackets in a string after an escape", `{a: "\\` + brackets + `"}`, false},
		{"string of odd length then real nesting", `{a: "x", b: ` + deep + `}`, true},
		{"brackets in a line comment", "// " + brackets + "\n{}", false},
		{"brackets in a line comment with no space", "//" + brackets + "\n{}", false},
		{"brackets in a one-line block comment", "/* " + brackets + " */ {}", false},
		{"brackets in a multi-line block comment", "/*\n" + brackets + "\n*/\n{}", false},
		{"brackets after a slash in a block comment", "/* see a/b " + brackets + " */ {}", false},
		{"brackets after a lone star in a block comment", "/* * " + brackets + " */ {}", false},
		{"real nesting after a block comment", "/* c */ " + deep, true},
		{"real nesting after two adjacent block comments", "/* a *//* b */ " + deep, true},
		{"real nesting after a line comment", "// c\n" + deep, true},
		{"wide but shallow", "[" + strings.Repeat("[],", 2*maxNesting) + "[]]", false},
		{"exactly the limit", strings.Repeat("[", maxNesting) + strings.Repeat("]", maxNesting), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseJSON5([]byte(tt.in))
			gotDeep := err != nil && strings.Contains(err.Error(), "nesting deeper than")
			if gotDeep != tt.tooDeep {
				t.Fatalf("ParseJSON5 err = %v, want too deep %v", err, tt.tooDeep)
			}
			if !tt.tooDeep && err != nil {
				t.Fatalf("ParseJSON5: %v", err)
			}
		})
	}
}

// A document cut short right after a comment opener, inside a comment or
// on a lone slash never panics (the nesting guard runs before the
// decoder's recover): it parses to the object before the comment or is a
// syntax error.
func TestParseJSON5TruncatedCommentsDoNotPanic(t *testing.T) {
	for in, want := range map[string]map[string]any{
		"{}/": {}, "{} //": {}, "{} // end": {}, "{} /* open *": {}, "{} /*": {}, "/": nil, "{a: 1} /* x": {"a": 1.0},
	} {
		t.Run(in, func(t *testing.T) {
			v, err := ParseJSON5([]byte(in))
			if err != nil {
				var se *SyntaxError
				if !errors.As(err, &se) {
					t.Fatalf("ParseJSON5(%q) = %v (%T), want a *SyntaxError", in, err, err)
				}
				return
			}
			if !reflect.DeepEqual(v, want) {
				t.Fatalf("ParseJSON5(%q) = %#v, want %#v", in, v, want)
			}
		})
	}
}

// HasComments sees a comment at the very start of a document and never
// panics on a document ending inside a string or on a slash.
func TestHasCommentsEdges(t *testing.T) {
	for doc, want := range map[string]bool{
		"// header\n{a: 1}":   true,
		"/* header */ {a: 1}": true,
		"{a: 1} /* unclosed":  true,
		`{a: "unterminated`:   false,
		`{a: 'x\`:             false,
		"{a: 1}/":             false,
		"/":                   false,
		"/x":                  false,
		`{a: "/*"} // real`:   true,
		`{a: "x"}`:            false,
	} {
		if got := HasComments([]byte(doc)); got != want {
			t.Errorf("HasComments(%q) = %v, want %v", doc, got, want)
		}
	}
}
