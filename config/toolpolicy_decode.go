package config

import (
	"encoding/json"

	"github.com/openclaw-go/openclaw/policy"
)

// decodeToolPolicy fills a tools policy (config `tools`, `agents.list[].tools`)
// from the parsed document without a JSON round trip: every local tool
// call reads it, and building encoding/json's decoder for the type cost
// more than the rest of the policy check. A value of the wrong type is
// skipped (validation reports it), as the JSON decoder left it zero.
// loopDetection, rarely set, still goes through JSON.
func decodeToolPolicy(raw any, dst *policy.ToolPolicy) {
	m, ok := raw.(map[string]any)
	if !ok {
		return
	}
	if s, ok := m["profile"].(string); ok {
		dst.Profile = s
	}
	dst.Allow = stringList(m["allow"], dst.Allow)
	dst.AlsoAllow = stringList(m["alsoAllow"], dst.AlsoAllow)
	dst.Deny = stringList(m["deny"], dst.Deny)
	if bp, ok := m["byProvider"].(map[string]any); ok {
		if dst.ByProvider == nil {
			dst.ByProvider = make(map[string]policy.ToolPolicy, len(bp))
		}
		for k, v := range bp {
			var p policy.ToolPolicy
			decodeToolPolicy(v, &p)
			dst.ByProvider[k] = p
		}
	}
	if ld, ok := m["loopDetection"]; ok && ld != nil {
		if b, err := json.Marshal(ld); err == nil {
			var lc policy.LoopConfig
			if json.Unmarshal(b, &lc) == nil {
				dst.LoopDetection = &lc
			}
		}
	}
}

// stringList reads an array of strings; anything else keeps old.
func stringList(v any, old []string) []string {
	arr, ok := v.([]any)
	if !ok {
		return old
	}
	out := make([]string, 0, len(arr))
	for _, e := range arr {
		s, ok := e.(string)
		if !ok {
			return old
		}
		out = append(out, s)
	}
	return out
}
