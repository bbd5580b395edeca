package config

import (
	"reflect"
	"sort"
)

// MergePatch applies an RFC 7396 JSON merge patch: when patch is an object,
// its members merge into target recursively and null members delete;
// any other patch (array, scalar, null) replaces target. Inputs are not
// modified; the result shares no maps or slices with them.
func MergePatch(target, patch any) any {
	pm, ok := patch.(map[string]any)
	if !ok {
		return deepCopy(patch)
	}
	tm, ok := target.(map[string]any)
	out := make(map[string]any, len(tm)+len(pm))
	if ok {
		for k, v := range tm {
			out[k] = deepCopy(v)
		}
	}
	for k, v := range pm {
		if v == nil {
			delete(out, k)
			continue
		}
		out[k] = MergePatch(out[k], v)
	}
	return out
}

// ChangedPaths lists, sorted, the paths whose values differ between before
// and after. Objects are compared member by member down to the leaves;
// arrays and scalars are compared whole, so a changed array is reported
// once at its own path. A value present on one side only is reported at
// its leaves.
func ChangedPaths(before, after any) []string {
	var out []string
	changedPaths(before, after, "", &out)
	sort.Strings(out)
	return out
}

func changedPaths(a, b any, path string, out *[]string) {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok || bok {
		if (aok || a == nil) && (bok || b == nil) {
			keys := map[string]bool{}
			for k := range am {
				keys[k] = true
			}
			for k := range bm {
				keys[k] = true
			}
			for k := range keys {
				av, ain := am[k]
				bv, bin := bm[k]
				if ain && bin && isEmptyObject(av) && isEmptyObject(bv) {
					continue
				}
				if ain != bin && isEmptyObject(av) && isEmptyObject(bv) {
					*out = append(*out, joinKey(path, k))
					continue
				}
				changedPaths(av, bv, joinKey(path, k), out)
			}
			return
		}
	}
	if !equalJSON(a, b) && path != "" {
		*out = append(*out, path)
	}
}

func isEmptyObject(v any) bool {
	m, ok := v.(map[string]any)
	return (ok && len(m) == 0) || v == nil
}

// equalJSON compares decoded JSON values; numbers compare by value.
func equalJSON(a, b any) bool {
	if fa, ok := toFloat(a); ok {
		fb, ok := toFloat(b)
		return ok && fa == fb
	}
	return reflect.DeepEqual(a, b)
}

func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case float32:
		return float64(n), true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	}
	return 0, false
}

// deepCopy copies maps and slices of a decoded JSON value.
func deepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
