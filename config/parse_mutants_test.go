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

// A document that ends inside a block comment or on a lone slash is a
// syntax error at its end (the decoder alone accepts it; JSON5 does not),
// never a panic (the nesting guard runs before the decoder's recover). A
// line comment may end the file.
func TestParseJSON5TruncatedComments(t *testing.T) {
	for in, want := range map[string]map[string]any{
		"{}/": nil, "{} /* open *": nil, "{} /*": nil, "{} /*/": nil, "{a: 1} /* x": nil, "[1] /*\n*": nil,
		"{} //": {}, "{} // end": {}, "{}/**/": {}, "{a: 1} /* x */": {"a": 1.0}, "{}//": {},
	} {
		t.Run(in, func(t *testing.T) {
			v, err := ParseJSON5([]byte(in))
			if want == nil {
				var se *SyntaxError
				if !errors.As(err, &se) {
					t.Fatalf("ParseJSON5(%q) = %#v, %v; want a *SyntaxError", in, v, err)
				}
				if se.Offset != len(in) || !strings.Contains(se.Msg, "unexpected end") {
					t.Errorf("ParseJSON5(%q): error %+v, want unexpected end at offset %d", in, se, len(in))
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseJSON5(%q): %v", in, err)
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
