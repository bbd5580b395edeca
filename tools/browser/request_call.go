package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/failure"
	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

// routeCall is one browser.request being served: the route's inputs and
// the caller's env, which every action it runs is invoked with.
type routeCall struct {
	env   *tools.Env
	query map[string]any
	body  map[string]any
	path  map[string]string
}

// args builds the params of browser.<verb> from the query, the body and
// the path parameters (in that order, later wins), renamed where the
// original's field differs. The action's schema decides the types of
// query strings; a field the action does not know is refused unless it is
// unset (false, "", 0, null, []), which is how the original CLI sends an
// option the user did not give.
func (c *routeCall) args(verb string, rename map[string]string) (map[string]any, error) {
	a := tools.Lookup("browser." + verb)
	if a == nil {
		return nil, routeError(404, fmt.Sprintf("this gateway has no browser %q action for this route", verb))
	}
	props := gjson.Get(a.Schema, "properties")
	out := map[string]any{}
	put := func(k string, v any, fromQuery bool) error {
		if r, ok := rename[k]; ok {
			k = r
		}
		prop := props.Get(gjson.Escape(k))
		if !prop.Exists() {
			if isUnset(v) {
				return nil
			}
			return routeError(400, fmt.Sprintf("%q is not supported by browser %s here", k, verb))
		}
		if fromQuery {
			cv, err := coerceQuery(k, v, prop)
			if err != nil {
				return err
			}
			v = cv
		}
		out[k] = v
		return nil
	}
	for _, k := range sortedKeys(c.query) {
		if err := put(k, c.query[k], true); err != nil {
			return nil, err
		}
	}
	for _, k := range sortedKeys(c.body) {
		if err := put(k, c.body[k], false); err != nil {
			return nil, err
		}
	}
	for k, v := range c.path {
		if err := put(k, v, false); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func sortedKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// isUnset reports whether v is how the original CLI sends an absent option.
func isUnset(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case bool:
		return !x
	case string:
		return x == "" || x == "false"
	case json.Number:
		return x == "0"
	case float64:
		return x == 0
	case []any:
		return len(x) == 0
	}
	return false
}

// coerceQuery turns a query value (a string on the wire) into the type the
// action's schema declares for it.
func coerceQuery(k string, v any, prop gjson.Result) (any, error) {
	s, ok := v.(string)
	if !ok {
		return v, nil
	}
	typ := prop.Get("type")
	has := func(t string) bool {
		if typ.IsArray() {
			for _, x := range typ.Array() {
				if x.String() == t {
					return true
				}
			}
			return false
		}
		return typ.String() == t
	}
	switch {
	case has("string"):
		return s, nil
	case has("boolean"):
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "true", "1", "yes", "on":
			return true, nil
		case "false", "0", "no", "off":
			return false, nil
		}
		return nil, routeError(400, fmt.Sprintf("invalid %s: %q is not a boolean", k, s))
	case has("integer"):
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return nil, routeError(400, fmt.Sprintf("invalid %s: %q is not an integer", k, s))
		}
		return n, nil
	case has("number"):
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return nil, routeError(400, fmt.Sprintf("invalid %s: %q is not a number", k, s))
		}
		return f, nil
	case has("array"):
		return strings.Split(s, ","), nil
	}
	return s, nil
}

// invoke runs browser.<verb> through the one door and returns its details
// (the route JSON); its failure becomes the original's error shape.
func (c *routeCall) invoke(ctx context.Context, verb string, args map[string]any) (map[string]any, error) {
	b, err := json.Marshal(args)
	if err != nil {
		return nil, routeError(400, "browser request: "+err.Error())
	}
	out, err := tools.Invoke(ctx, c.env, tools.Call{Tool: "browser", Verb: verb, Args: b})
	if err != nil {
		return nil, actionError(err)
	}
	details := map[string]any{}
	if d := gjson.GetBytes(out, "details"); d.IsObject() {
		if err := json.Unmarshal([]byte(d.Raw), &details); err != nil {
			return nil, routeError(500, "browser "+verb+": "+err.Error())
		}
	}
	return details, nil
}

// routeError is the original's answer to a route that failed with an HTTP
// status: INVALID_REQUEST for 4xx, UNAVAILABLE for 5xx, the message as
// the route body's error, and the body ({error}) as details.
func routeError(status int, msg string) *failure.Error {
	return routeErrorCode(status, "", msg)
}

// routeErrorCode is routeError with the body's code (ACT_KIND_REQUIRED, ...).
func routeErrorCode(status int, code, msg string) *failure.Error {
	wire := protocol.ErrInvalidRequest
	if status >= 500 {
		wire = protocol.ErrUnavailable
	}
	body := map[string]any{"error": msg, "status": status}
	if code != "" {
		body["code"] = code
	}
	return failure.Errorf(wire, "%s", msg).WithDetails(body)
}

// actionError translates a browser action's failure into the status the
// original's route would have answered. Refusals of the caller itself
// (role, scope) are left as they are.
func actionError(err error) error {
	var fe *failure.Error
	if !errors.As(err, &fe) {
		return routeError(500, err.Error())
	}
	switch fe.Code {
	case failure.CodeMissingScope, failure.CodeUnauthorizedRole, failure.CodeAuth:
		return err
	case failure.CodeInvalidParams, failure.CodeUsage, failure.CodeUnknownTool:
		return routeError(400, fe.Message)
	case failure.CodeNotFound:
		return routeError(404, fe.Message)
	case failure.CodeDenied:
		return routeError(403, fe.Message)
	case failure.CodeTimeout:
		return routeError(504, fe.Message)
	}
	return routeError(500, fe.Message)
}

// unknownRoute is the original dispatcher's 404 ("Not Found"), naming the
// routes this gateway serves so the caller sees what would work.
func unknownRoute(method, path string) error {
	var have []string
	for _, rt := range routes() {
		if rt.run != nil || hasVerb(rt.verb) {
			have = append(have, rt.method+" "+rt.pattern)
		}
	}
	return routeError(404, fmt.Sprintf("Not Found: no browser route %s %s on this gateway (routes: %s)", method, path, strings.Join(have, ", ")))
}

// hasVerb reports whether the browser tool has this action.
func hasVerb(verb string) bool { return verb != "" && tools.Lookup("browser."+verb) != nil }

// actKinds lists the kinds the act action accepts (its schema's enum).
func actKinds() []string {
	a := tools.Lookup("browser.act")
	if a == nil {
		return nil
	}
	var out []string
	for _, k := range gjson.Get(a.Schema, "properties.kind.enum").Array() {
		out = append(out, k.String())
	}
	return out
}

func actKindSupported(kind string) bool {
	for _, k := range actKinds() {
		if k == kind {
			return true
		}
	}
	return false
}
