package agentrun

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/tools"
)

// decodeLoose reads params into v, ignoring fields v does not name (the
// schema already checked them).
func decodeLoose(raw []byte, v any) error {
	if len(raw) == 0 {
		raw = []byte(`{}`)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return tools.Errorf(tools.CodeInvalidParams, "invalid params: %v", err)
	}
	return nil
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// replyOf is a run's last reply text.
func replyOf(o *Outcome) string {
	if o == nil || len(o.Result.Payloads) == 0 {
		return ""
	}
	return o.Result.Payloads[len(o.Result.Payloads)-1].Text
}

// outcomeOf decodes an ended agent job's Outcome.
func outcomeOf(end tools.JobInfo) (*Outcome, bool) {
	if end.Status != tools.JobOK || len(end.Result) == 0 {
		return nil, false
	}
	var o Outcome
	if json.Unmarshal(end.Result, &o) != nil {
		return nil, false
	}
	return &o, true
}

// renderJSONDetails prints a JSON tool result's fields for a person: the
// status first, then the rest as key: value lines.
func renderJSONDetails(w io.Writer, res gjson.Result) error {
	d := res.Get("details")
	if !d.Exists() {
		d = res
	}
	if st := d.Get("status"); st.Exists() {
		if _, err := fmt.Fprintf(w, "status: %s\n", st.String()); err != nil {
			return err
		}
	}
	var err error
	d.ForEach(func(k, v gjson.Result) bool {
		if k.String() == "status" {
			return true
		}
		_, err = fmt.Fprintf(w, "%s: %s\n", k.String(), v.String())
		return err == nil
	})
	return err
}

// idString is a thread id given as a string or a number.
func idString(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return strings.TrimSpace(t)
	case float64:
		return strconv.FormatInt(int64(t), 10)
	case json.Number:
		return t.String()
	}
	return fmt.Sprint(v)
}
