package gateway

import (
	"fmt"
	"io"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/texttable"
)

// Human renderings of the device.pair.* and tasks.* results: the CLI's
// `openclaw devices` and `openclaw tasks` verbs are generated from these
// actions and print through them on a terminal.

func renderDevices(w io.Writer, v gjson.Result) error {
	pending, paired := v.Get("pending").Array(), v.Get("paired").Array()
	if len(pending) == 0 {
		if _, err := fmt.Fprintln(w, "No pending pairing requests."); err != nil {
			return err
		}
	} else {
		rows := make([][]string, 0, len(pending))
		for _, p := range pending {
			rows = append(rows, []string{p.Get("requestId").String(), short12(p.Get("deviceId").String()), p.Get("role").String(),
				strings.Join(strs(p.Get("scopes")), ","), p.Get("remoteIp").String(), firstOf(p.Get("displayName").String(), p.Get("clientId").String())})
		}
		if _, err := fmt.Fprintln(w, "Pending (approve with: openclaw devices approve <requestId>):"); err != nil {
			return err
		}
		if err := writeTable(w, []string{"REQUEST", "DEVICE", "ROLE", "SCOPES", "FROM", "CLIENT"}, rows); err != nil {
			return err
		}
	}
	if len(paired) == 0 {
		_, err := fmt.Fprintln(w, "No paired devices.")
		return err
	}
	rows := make([][]string, 0, len(paired))
	for _, d := range paired {
		rows = append(rows, []string{d.Get("deviceId").String(), strings.Join(strs(d.Get("roles")), ","),
			strings.Join(strs(d.Get("scopes")), ","), firstOf(d.Get("operatorLabel").String(), d.Get("displayName").String(), d.Get("clientId").String())})
	}
	if _, err := fmt.Fprintln(w, "Paired:"); err != nil {
		return err
	}
	return writeTable(w, []string{"DEVICE", "ROLES", "SCOPES", "CLIENT"}, rows)
}

func renderApproved(w io.Writer, v gjson.Result) error {
	_, err := fmt.Fprintf(w, "Approved %s (%s)\n", v.Get("device.deviceId").String(), strings.Join(strs(v.Get("device.roles")), ", "))
	return err
}

func renderRejected(w io.Writer, v gjson.Result) error {
	_, err := fmt.Fprintf(w, "Rejected request %s (device %s)\n", v.Get("requestId").String(), v.Get("deviceId").String())
	return err
}

func renderRemoved(w io.Writer, v gjson.Result) error {
	_, err := fmt.Fprintf(w, "Removed device %s\n", v.Get("deviceId").String())
	return err
}

func renderTasks(w io.Writer, v gjson.Result) error {
	list := v.Get("tasks").Array()
	if len(list) == 0 {
		_, err := fmt.Fprintln(w, "No tasks.")
		return err
	}
	rows := make([][]string, 0, len(list))
	for _, t := range list {
		rows = append(rows, []string{t.Get("id").String(), t.Get("kind").String(), t.Get("status").String(),
			t.Get("startedAt").String(), t.Get("owner").String()})
	}
	return writeTable(w, []string{"ID", "KIND", "STATUS", "STARTED", "OWNER"}, rows)
}

// writeTable prints a texttable (the same layout as the CLI's tables).
func writeTable(w io.Writer, header []string, rows [][]string) error {
	lines, err := texttable.Lines(header, rows)
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, strings.Join(lines, "\n")+"\n")
	return err
}

func strs(v gjson.Result) []string {
	var out []string
	for _, e := range v.Array() {
		out = append(out, e.String())
	}
	return out
}

func short12(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

func firstOf(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
