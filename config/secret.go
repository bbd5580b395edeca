package config

import (
	"os"
	"strings"
)

// Secret reads a key the way the original's config allows it to be written:
// a plain string, or a SecretRef {source:"env", id} naming an environment
// variable. Anything else (or an unset variable) is "".
func Secret(v any) string {
	switch k := v.(type) {
	case string:
		return strings.TrimSpace(k)
	case map[string]any:
		if id, _ := k["id"].(string); k["source"] == "env" && id != "" {
			return strings.TrimSpace(os.Getenv(id))
		}
	}
	return ""
}
