package config

import (
	"fmt"
	"strings"
)

// MissingEnvError reports a ${VAR} reference whose variable is unset or empty.
type MissingEnvError struct {
	Var  string // variable name
	Path string // config key path, e.g. "tools.web.search.apiKey"
}

func (e *MissingEnvError) Error() string {
	return fmt.Sprintf("config %s: environment variable %s is not set", e.Path, e.Var)
}

// SubstituteEnv replaces ${VAR} references in every string value of v
// (recursively) and returns the new value; v is not modified. Names must
// match [A-Z_][A-Z0-9_]*; anything else is left as written. $${VAR}
// escapes to a literal ${VAR}. A variable that lookup reports empty is an
// error naming the key path.
func SubstituteEnv(v any, lookup func(string) string) (any, error) {
	return substAny(v, "", lookup)
}

func substAny(v any, path string, lookup func(string) string) (any, error) {
	switch t := v.(type) {
	case string:
		return substString(t, path, lookup)
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			r, err := substAny(e, joinIndex(path, i), lookup)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(t))
		for _, k := range sortedKeys(t) {
			r, err := substAny(t[k], joinKey(path, k), lookup)
			if err != nil {
				return nil, err
			}
			out[k] = r
		}
		return out, nil
	}
	return v, nil
}

func substString(s, path string, lookup func(string) string) (string, error) {
	if !strings.Contains(s, "$") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' {
			b.WriteByte(s[i])
			continue
		}
		// $${VAR} -> ${VAR}
		if strings.HasPrefix(s[i:], "$${") {
			if name, end, ok := envRef(s, i+3); ok {
				b.WriteString("${" + name + "}")
				i = end
				continue
			}
		}
		if strings.HasPrefix(s[i:], "${") {
			if name, end, ok := envRef(s, i+2); ok {
				val := lookup(name)
				if val == "" {
					return "", &MissingEnvError{Var: name, Path: path}
				}
				b.WriteString(val)
				i = end
				continue
			}
		}
		b.WriteByte('$')
	}
	return b.String(), nil
}

// envRef reads a variable name starting at start up to the closing brace;
// it returns the name and the index of the brace.
func envRef(s string, start int) (string, int, bool) {
	end := strings.IndexByte(s[start:], '}')
	if end < 0 {
		return "", 0, false
	}
	name := s[start : start+end]
	if !validEnvName(name) {
		return "", 0, false
	}
	return name, start + end, true
}

func validEnvName(n string) bool {
	if n == "" {
		return false
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		switch {
		case c == '_', c >= 'A' && c <= 'Z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// configEnvLookup returns a lookup that asks getenv first and falls back
// to the config's own env block: env.vars{} and string values directly
// under env (process env always wins, as in OpenClaw).
func configEnvLookup(doc map[string]any, getenv func(string) string) func(string) string {
	vars := map[string]string{}
	if env, ok := doc["env"].(map[string]any); ok {
		for k, v := range env {
			if s, ok := v.(string); ok && k != "vars" && k != "shellEnv" {
				vars[k] = s
			}
		}
		if vm, ok := env["vars"].(map[string]any); ok {
			for k, v := range vm {
				if s, ok := v.(string); ok {
					vars[k] = s
				}
			}
		}
	}
	return func(name string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return vars[name]
	}
}
