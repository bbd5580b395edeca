package gateway

import (
	"fmt"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
	"github.com/tidwall/gjson"
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

// writeTable prints a borderless, left-aligned table with the header as
// given and two spaces between columns, columns sized by display width
// (tablewriter v1.1.2 counts grapheme clusters; see commands/table.go,
// whose tables look the same).
func writeTable(w io.Writer, header []string, rows [][]string) error {
	var buf strings.Builder
	t := tablewriter.NewTable(&buf,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
			Borders: tw.BorderNone,
			Symbols: tw.NewSymbols(tw.StyleNone),
			Settings: tw.Settings{
				Separators: tw.Separators{BetweenColumns: tw.Off, BetweenRows: tw.Off},
				Lines:      tw.Lines{ShowTop: tw.Off, ShowBottom: tw.Off, ShowHeaderLine: tw.Off, ShowFooterLine: tw.Off},
			},
		})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignment(tw.AlignLeft),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithTrimSpace(tw.Off),
		tablewriter.WithEastAsian(tw.Off),
	)
	flat := strings.NewReplacer("\t", " ", "\n", " ", "\r", " ")
	hdr := make([]string, len(header))
	for i, h := range header {
		hdr[i] = flat.Replace(h)
	}
	t.Header(hdr)
	for _, r := range rows {
		c := make([]string, len(r))
		for i, s := range r {
			c[i] = flat.Replace(s)
		}
		if err := t.Append(c); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	var out strings.Builder
	for _, line := range strings.SplitAfter(buf.String(), "\n") {
		if line != "" {
			// one pad space each side of every cell: drop the first column's
			out.WriteString(strings.TrimPrefix(strings.TrimRight(line, " \n"), " "))
			out.WriteByte('\n')
		}
	}
	_, err := io.WriteString(w, out.String())
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
