package config

import "fmt"

// SetPath stores value at path in doc, creating missing intermediate
// objects. An index addresses an existing array element; the index equal
// to the array's length appends. Setting through a scalar or indexing a
// non-array is an error.
func SetPath(doc map[string]any, path string, value any) error {
	if doc == nil {
		return fmt.Errorf("config set %s: nil document", path)
	}
	segs, err := ParsePath(path)
	if err != nil {
		return err
	}
	if segs[0].IsIdx {
		return fmt.Errorf("config set %s: the top level is an object, not an array", path)
	}
	_, err = setIn(doc, segs, value, path)
	return err
}

// setIn sets value below cur and returns the (possibly new) container,
// which the caller stores back (arrays may grow).
func setIn(cur any, segs []Segment, value any, full string) (any, error) {
	s := segs[0]
	last := len(segs) == 1
	if s.IsIdx {
		arr, ok := cur.([]any)
		if !ok {
			return nil, fmt.Errorf("config set %s: [%d] indexes a %s, not an array", full, s.Index, jsonType(cur))
		}
		if s.Index > len(arr) {
			return nil, fmt.Errorf("config set %s: index %d out of range (length %d)", full, s.Index, len(arr))
		}
		if s.Index == len(arr) {
			if !last {
				arr = append(arr, map[string]any{})
			} else {
				return append(arr, value), nil
			}
		}
		if last {
			arr[s.Index] = value
			return arr, nil
		}
		child, err := setIn(arr[s.Index], segs[1:], value, full)
		if err != nil {
			return nil, err
		}
		arr[s.Index] = child
		return arr, nil
	}
	m, ok := cur.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("config set %s: %q is below a %s, not an object", full, s.Key, jsonType(cur))
	}
	if last {
		m[s.Key] = value
		return m, nil
	}
	next, exists := m[s.Key]
	if !exists || next == nil {
		if segs[1].IsIdx {
			return nil, fmt.Errorf("config set %s: no array at %q", full, s.Key)
		}
		next = map[string]any{}
	}
	child, err := setIn(next, segs[1:], value, full)
	if err != nil {
		return nil, err
	}
	m[s.Key] = child
	return m, nil
}

// UnsetPath removes the value at path: an object member is deleted, an
// array element is spliced out. It reports false (and no error) when
// nothing is there.
func UnsetPath(doc map[string]any, path string) (bool, error) {
	segs, err := ParsePath(path)
	if err != nil {
		return false, err
	}
	parent, ok := getPath(doc, segs[:len(segs)-1])
	if len(segs) == 1 {
		parent, ok = doc, doc != nil
	}
	if !ok {
		return false, nil
	}
	s := segs[len(segs)-1]
	if !s.IsIdx {
		m, ok := parent.(map[string]any)
		if !ok {
			return false, nil
		}
		if _, ok := m[s.Key]; !ok {
			return false, nil
		}
		delete(m, s.Key)
		return true, nil
	}
	arr, ok := parent.([]any)
	if !ok || s.Index >= len(arr) {
		return false, nil
	}
	out := append(append(make([]any, 0, len(arr)-1), arr[:s.Index]...), arr[s.Index+1:]...)
	// Store the shorter slice back into the array's container.
	if len(segs) == 1 {
		return false, nil
	}
	gp, _ := getPath(doc, segs[:len(segs)-2])
	if len(segs) == 2 {
		gp = doc
	}
	switch g := gp.(type) {
	case map[string]any:
		g[segs[len(segs)-2].Key] = out
	case []any:
		g[segs[len(segs)-2].Index] = out
	default:
		return false, nil
	}
	return true, nil
}
