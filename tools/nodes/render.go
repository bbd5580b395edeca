package nodes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/texttable"
)

// Human output of the nodes commands; --json prints the result as is.

func renderText(w io.Writer, r gjson.Result) error {
	var err error
	r.Get("content").ForEach(func(_, b gjson.Result) bool {
		if b.Get("type").String() == "text" {
			_, err = fmt.Fprintln(w, b.Get("text").String())
		}
		return err == nil
	})
	return err
}

func table(w io.Writer, header []string, rows [][]string) error {
	lines, err := texttable.Lines(header, rows)
	if err != nil {
		return err
	}
	for _, l := range lines {
		if _, err := fmt.Fprintln(w, l); err != nil {
			return err
		}
	}
	return nil
}

// ago is a short age ("12s ago", "3h ago").
func ago(ms int64) string {
	if ms <= 0 {
		return ""
	}
	d := time.Since(time.UnixMilli(ms))
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds ago", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}

func list(r gjson.Result) []string {
	var out []string
	r.ForEach(func(_, v gjson.Result) bool { out = append(out, v.String()); return true })
	return out
}

func renderStatus(w io.Writer, r gjson.Result) error {
	nodes := r.Get("details.nodes").Array()
	paired, connected := 0, 0
	for _, n := range nodes {
		if n.Get("paired").Bool() {
			paired++
		}
		if n.Get("connected").Bool() {
			connected++
		}
	}
	if _, err := fmt.Fprintf(w, "Known: %d · Paired: %d · Connected: %d\n", len(nodes), paired, connected); err != nil {
		return err
	}
	if len(nodes) == 0 {
		return nil
	}
	rows := make([][]string, 0, len(nodes))
	for _, n := range nodes {
		status := "offline"
		if n.Get("connected").Bool() {
			status = "connected " + ago(n.Get("connectedAtMs").Int())
		} else if t := n.Get("lastConnectedAtMs").Int(); t > 0 {
			status = "last seen " + ago(n.Get("lastSeenAtMs").Int())
		}
		status += " · " + n.Get("approvalState").String()
		rows = append(rows, []string{first(n.Get("displayName").String(), "-"), short(n.Get("nodeId").String()),
			n.Get("remoteIp").String(), n.Get("platform").String(), strings.TrimSpace(status),
			fmt.Sprintf("%d", len(n.Get("commands").Array()))})
	}
	return table(w, []string{"NODE", "ID", "IP", "PLATFORM", "STATUS", "COMMANDS"}, rows)
}

func renderDescribe(w io.Writer, r gjson.Result) error {
	d := r.Get("details")
	line := func(k, v string) error {
		if v == "" {
			return nil
		}
		_, err := fmt.Fprintf(w, "%-13s %s\n", k+":", v)
		return err
	}
	state := "offline"
	if d.Get("connected").Bool() {
		state = "connected " + ago(d.Get("connectedAtMs").Int())
	}
	stats := ""
	if hs := d.Get("hostStats"); hs.Exists() {
		stats = fmt.Sprintf("%d cpu · load %.2f · mem %s free of %s", hs.Get("cpuCount").Int(), hs.Get("loadAverage.0").Float(),
			bytesIEC(hs.Get("memoryFreeBytes").Int()), bytesIEC(hs.Get("memoryTotalBytes").Int()))
		if t := hs.Get("updatedAtMs").Int(); t > 0 {
			stats += " (" + ago(t) + ")"
		}
	}
	var skills, tools []string
	d.Get("nodeSkills").ForEach(func(_, s gjson.Result) bool { skills = append(skills, s.Get("name").String()); return true })
	d.Get("nodePluginTools").ForEach(func(_, s gjson.Result) bool { tools = append(tools, s.Get("name").String()); return true })
	for _, kv := range [][2]string{
		{"Node", d.Get("displayName").String()}, {"ID", d.Get("nodeId").String()},
		{"Platform", strings.TrimSpace(d.Get("platform").String() + " " + d.Get("deviceFamily").String())},
		{"Version", d.Get("version").String()}, {"Client", d.Get("clientId").String() + "/" + d.Get("clientMode").String()},
		{"IP", d.Get("remoteIp").String()}, {"State", state + " · " + d.Get("approvalState").String()},
		{"Pending", d.Get("pendingRequestId").String()},
		{"Caps", strings.Join(list(d.Get("caps")), ", ")}, {"Commands", strings.Join(list(d.Get("commands")), ", ")},
		{"Declared", strings.Join(list(d.Get("declaredCommands")), ", ")},
		{"Withheld", strings.Join(list(d.Get("withheldCommands")), ", ")},
		{"Host stats", stats}, {"Skills", strings.Join(skills, ", ")}, {"Plugin tools", strings.Join(tools, ", ")},
	} {
		if err := line(kv[0], kv[1]); err != nil {
			return err
		}
	}
	return nil
}

func bytesIEC(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

func renderPending(w io.Writer, r gjson.Result) error {
	pending := r.Get("details.pending").Array()
	dropped := ""
	if n := r.Get("details.dropped").Int(); n > 0 {
		dropped = fmt.Sprintf("Note: %d older pending requests were dropped (the gateway keeps at most %d); their nodes ask again when they reconnect.\n",
			n, r.Get("details.maxPending").Int())
	}
	if len(pending) == 0 {
		_, err := fmt.Fprint(w, "No pending node requests.\n"+dropped)
		return err
	}
	rows := make([][]string, 0, len(pending))
	for _, p := range pending {
		rows = append(rows, []string{p.Get("requestId").String(), first(p.Get("displayName").String(), short(p.Get("nodeId").String())),
			p.Get("remoteIp").String(), strings.Join(list(p.Get("commands")), ", "), strings.Join(list(p.Get("requiredApproveScopes")), ", ")})
	}
	if err := table(w, []string{"REQUEST", "NODE", "IP", "COMMANDS", "APPROVE NEEDS"}, rows); err != nil {
		return err
	}
	_, err := fmt.Fprint(w, dropped+"Approve with: openclaw nodes approve <request>\n")
	return err
}

func renderResolved(verb string) func(io.Writer, gjson.Result) error {
	return func(w io.Writer, r gjson.Result) error {
		d := r.Get("details")
		node := first(d.Get("node.displayName").String(), d.Get("node.nodeId").String(), d.Get("nodeId").String())
		_, err := fmt.Fprintf(w, "%s %s\n", verb, node)
		return err
	}
}

func renderRenamed(w io.Writer, r gjson.Result) error {
	_, err := fmt.Fprintf(w, "Renamed %s → %s\n", short(r.Get("details.nodeId").String()), r.Get("details.displayName").String())
	return err
}

// renderPayload prints an invoke's payload as indented JSON.
func renderPayload(w io.Writer, r gjson.Result) error {
	d := r.Get("details")
	if p := d.Get("payload"); p.Exists() && d.Get("command").Exists() {
		d = p
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, []byte(d.Raw), "", "  "); err != nil {
		buf.Reset()
		buf.WriteString(d.Raw)
	}
	_, err := fmt.Fprintln(w, buf.String())
	return err
}

func renderRun(w io.Writer, r gjson.Result) error {
	d := r.Get("details")
	if _, err := io.WriteString(w, d.Get("stdout").String()); err != nil {
		return err
	}
	if s := d.Get("stderr").String(); s != "" {
		if _, err := io.WriteString(w, s); err != nil {
			return err
		}
	}
	if c := d.Get("exitCode").Int(); c != 0 {
		_, err := fmt.Fprintf(w, "(exit code %d)\n", c)
		return err
	}
	return nil
}
