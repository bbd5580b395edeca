package tools

import "encoding/json"

// callParams is what Invoke hands a handler beside the params bytes: the
// same params decoded once (validated), for Typed to fill P from.
type callParams struct {
	raw   json.RawMessage
	value any
	reg   *Registry
	id    string
}

// paramsFor returns the decoded form of params when Invoke made it for
// exactly these bytes (a handler calling another handler directly passes
// other bytes and gets nil).
func (e *Env) paramsFor(params json.RawMessage) *callParams {
	if e == nil || e.in == nil || len(e.in.raw) != len(params) {
		return nil
	}
	if len(params) > 0 && &e.in.raw[0] != &params[0] {
		return nil
	}
	return e.in
}

// OnDecode registers f to observe every parse of params bytes into values
// that Invoke or Typed does, with the action's id (tests prove with it that
// a call is parsed once per hop). The returned func removes it.
func (r *Registry) OnDecode(f func(id string)) (remove func()) {
	p := &f
	r.mu.Lock()
	r.decodeHooks = append(r.decodeHooks, p)
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		for i, h := range r.decodeHooks {
			if h == p {
				r.decodeHooks = append(r.decodeHooks[:i:i], r.decodeHooks[i+1:]...)
				return
			}
		}
	}
}

func (r *Registry) noteDecode(id string) {
	if r == nil {
		return
	}
	r.mu.RLock()
	hooks := r.decodeHooks
	r.mu.RUnlock()
	for _, h := range hooks {
		(*h)(id)
	}
}
