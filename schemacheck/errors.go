package schemacheck

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Kind says which check an Error comes from.
type Kind uint8

const (
	KindInvalidValue     Kind = iota + 1 // not a JSON value (NaN, ±Inf, a Go type JSON has no name for)
	KindFalse                            // the schema is false: no value is allowed here
	KindType                             // Want, Got
	KindConst                            // Values[0]
	KindEnum                             // Values
	KindRequired                         // Property is missing (Location is the object)
	KindAdditional                       // Property is not allowed (Location is the object)
	KindMinProperties                    // Limit, Actual
	KindMaxProperties                    // Limit, Actual
	KindMinItems                         // Limit, Actual
	KindMaxItems                         // Limit, Actual
	KindUniqueItems                      // Duplicates
	KindMinLength                        // Limit, Actual (runes)
	KindMaxLength                        // Limit, Actual (runes)
	KindPattern                          // Pattern
	KindMinimum                          // Bound
	KindMaximum                          // Bound
	KindExclusiveMinimum                 // Bound
	KindExclusiveMaximum                 // Bound
	KindMultipleOf                       // Bound
	KindNot                              // the value matches the "not" schema
	KindAnyOf                            // the value matches no anyOf branch
	KindOneOf                            // the value matches no oneOf branch
	KindOneOfMany                        // the value matches several oneOf branches (Duplicates holds two)
)

// Error is one validation failure.
type Error struct {
	// Location is the failing value's place in the instance as JSON pointer
	// tokens (unescaped); empty for the root.
	Location []string
	Kind     Kind
	// Want lists the allowed types (KindType), in canonical order: null,
	// boolean, number, integer, string, array, object.
	Want []string
	// Got is the value's JSON type (KindType): "null", "boolean",
	// "number", "string", "array" or "object".
	Got string
	// Property names the missing or disallowed key (KindRequired, KindAdditional).
	Property string
	// Values are the allowed values (KindConst has one, KindEnum all).
	Values []any
	// Limit and Actual are the bound and the measured count of the
	// Min*/Max* count checks.
	Limit, Actual int
	// Bound is the numeric bound as text ("65535", "0.5") for
	// minimum/maximum/exclusive*/multipleOf.
	Bound string
	// Pattern is the regular expression a string failed to match.
	Pattern string
	// Duplicates holds the indexes of two equal array items (KindUniqueItems)
	// or of two matching branches (KindOneOfMany).
	Duplicates [2]int
}

// Pointer is the RFC 6901 JSON pointer of Location ("" is the root).
func (e *Error) Pointer() string { return Pointer(e.Location) }

// Pointer renders pointer tokens as an RFC 6901 JSON pointer.
func Pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(escapeToken(t))
	}
	return b.String()
}

// Error renders "<pointer>: <message>", with "/" for the root.
func (e *Error) Error() string {
	p := e.Pointer()
	if p == "" {
		p = "/"
	}
	return p + ": " + e.Message()
}

// Message is the failure in plain English, without the location.
func (e *Error) Message() string {
	switch e.Kind {
	case KindInvalidValue:
		return "not a valid JSON value (NaN and Infinity are not allowed)"
	case KindFalse:
		return "no value is allowed here"
	case KindType:
		return "expected " + joinOr(e.Want) + ", got " + e.Got
	case KindConst:
		return "must be " + quoteValue(firstOr(e.Values))
	case KindEnum:
		if len(e.Values) == 1 {
			return "must be " + quoteValue(e.Values[0])
		}
		q := make([]string, len(e.Values))
		for i, v := range e.Values {
			q[i] = quoteValue(v)
		}
		return "must be one of " + strings.Join(q, ", ")
	case KindRequired:
		return "missing property " + quoteName(e.Property)
	case KindAdditional:
		return "additional property " + quoteName(e.Property) + " not allowed"
	case KindMinProperties:
		return "must have at least " + plural(e.Limit, "property", "properties")
	case KindMaxProperties:
		return "must have at most " + plural(e.Limit, "property", "properties")
	case KindMinItems:
		return "must have at least " + plural(e.Limit, "item", "items")
	case KindMaxItems:
		return "must have at most " + plural(e.Limit, "item", "items")
	case KindUniqueItems:
		return fmt.Sprintf("items must be unique (items %d and %d are equal)", e.Duplicates[0], e.Duplicates[1])
	case KindMinLength:
		return "must be at least " + plural(e.Limit, "character", "characters") + " long"
	case KindMaxLength:
		return "must be at most " + plural(e.Limit, "character", "characters") + " long"
	case KindPattern:
		return "must match pattern " + strconv.Quote(e.Pattern)
	case KindMinimum:
		return "must be >= " + e.Bound
	case KindMaximum:
		return "must be <= " + e.Bound
	case KindExclusiveMinimum:
		return "must be > " + e.Bound
	case KindExclusiveMaximum:
		return "must be < " + e.Bound
	case KindMultipleOf:
		return "must be a multiple of " + e.Bound
	case KindNot:
		return "must not match the schema in \"not\""
	case KindAnyOf:
		return "must match at least one schema"
	case KindOneOf:
		return "must match exactly one schema"
	case KindOneOfMany:
		return fmt.Sprintf("must match exactly one schema, but matches %d and %d", e.Duplicates[0], e.Duplicates[1])
	}
	return "invalid"
}

func firstOr(vs []any) any {
	if len(vs) == 0 {
		return nil
	}
	return vs[0]
}

func joinOr(names []string) string {
	switch len(names) {
	case 0:
		return "nothing"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

func quoteName(s string) string { return "'" + strings.ReplaceAll(s, "'", `\'`) + "'" }

// quoteValue renders a JSON value compactly for a message.
func quoteValue(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 80 {
		return string(b[:77]) + "..."
	}
	return string(b)
}

// JSONType names the JSON type of a decoded value ("" if it is none).
func JSONType(v any) string {
	for _, tn := range typeNames {
		if tn.t == typeOf(v) {
			return tn.name
		}
	}
	return ""
}
