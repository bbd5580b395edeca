package gateway

import (
	"fmt"
	"sort"
	"strings"
)

// redactedSentinel replaces secret values in config.get output; writes
// that send it back keep the stored value.
const redactedSentinel = "__OPENCLAW_REDACTED__"

// sensitiveSuffixes mark keys holding secrets (gateway.auth.token,
// channels.telegram.botToken, models.providers.x.apiKey, …).
var sensitiveSuffixes = []string{"token", "password", "secret", "apikey", "api_key", "privatekey", "private_key", "passphrase"}

func isSensitiveKey(k string) bool {
	k = strings.ToLower(k)
	for _, s := range sensitiveSuffixes {
		if strings.HasSuffix(k, s) {
			return true
		}
	}
	return false
}

// redactDoc returns a copy of v with sensitive string values replaced, and
// collects the replaced values (for scrubbing the raw text).
func redactDoc(v any, secrets map[string]bool) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			if s, ok := e.(string); ok && s != "" && isSensitiveKey(k) && !isEnvRef(s) {
				secrets[s] = true
				out[k] = redactedSentinel
				continue
			}
			out[k] = redactDoc(e, secrets)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = redactDoc(e, secrets)
		}
		return out
	}
	return v
}

// isEnvRef keeps "${OPENCLAW_TOKEN}" visible: it names, not holds, a secret.
func isEnvRef(s string) bool {
	return strings.HasPrefix(s, "${") && strings.HasSuffix(s, "}") && !strings.Contains(s[2:], "${")
}

// redactRaw scrubs the collected secret values from the file text, longest
// first so a secret containing another is replaced whole.
func redactRaw(raw string, secrets map[string]bool) string {
	list := make([]string, 0, len(secrets))
	for s := range secrets {
		list = append(list, s)
	}
	sort.Slice(list, func(i, j int) bool { return len(list[i]) > len(list[j]) })
	for _, s := range list {
		raw = strings.ReplaceAll(raw, s, redactedSentinel)
	}
	return raw
}

// restoreRedacted puts stored values back where an incoming document still
// carries the sentinel (a config.get → edit → config.set round trip).
func restoreRedacted(next, prev any, path string) (any, error) {
	switch t := next.(type) {
	case string:
		if t != redactedSentinel {
			return t, nil
		}
		if s, ok := prev.(string); ok {
			return s, nil
		}
		return nil, fmt.Errorf("%s: %s has no stored value to keep", displayKey(path), redactedSentinel)
	case map[string]any:
		pm, _ := prev.(map[string]any)
		for k, e := range t {
			r, err := restoreRedacted(e, pm[k], joinPath(path, k))
			if err != nil {
				return nil, err
			}
			t[k] = r
		}
		return t, nil
	case []any:
		pa, _ := prev.([]any)
		for i, e := range t {
			var pe any
			if i < len(pa) {
				pe = pa[i]
			}
			r, err := restoreRedacted(e, pe, fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return nil, err
			}
			t[i] = r
		}
		return t, nil
	}
	return next, nil
}

func joinPath(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "." + key
}

func displayKey(p string) string {
	if p == "" {
		return "<root>"
	}
	return p
}
