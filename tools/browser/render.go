package browser

import (
	"fmt"
	"io"
	"strconv"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/texttable"
)

// Human output of the listing actions: a table each, as every other
// family's lists (--json prints the data as it is).

// renderTabs prints the open tabs: the current one marked *, the handle to
// pass as --target-id (its label when it has one), title and URL.
func renderTabs(w io.Writer, r gjson.Result) error {
	tabs := r.Get("details.tabs").Array()
	if len(tabs) == 0 {
		_, err := fmt.Fprintln(w, "No tabs open.")
		return err
	}
	rows := make([][]string, 0, len(tabs))
	for _, t := range tabs {
		cur := ""
		if t.Get("current").Bool() {
			cur = "*"
		}
		id := t.Get("suggestedTargetId").String()
		if id == "" {
			id = t.Get("targetId").String()
		}
		rows = append(rows, []string{cur, id, t.Get("title").String(), t.Get("url").String()})
	}
	return table(w, []string{"", "Tab", "Title", "URL"}, rows)
}

// renderProfiles prints the browser profiles: the default marked *,
// whether its browser runs, where its CDP endpoint is, its colour; a
// profile the config gets wrong shows why in the last column.
func renderProfiles(w io.Writer, r gjson.Result) error {
	profs := r.Get("details.profiles").Array()
	rows := make([][]string, 0, len(profs))
	for _, p := range profs {
		def := ""
		if p.Get("isDefault").Bool() {
			def = "*"
		}
		if e := p.Get("error").String(); e != "" {
			rows = append(rows, []string{def, p.Get("name").String(), "", "", "", "", e})
			continue
		}
		running, kind := "no", "managed"
		if p.Get("running").Bool() {
			running = "yes"
		}
		if p.Get("isRemote").Bool() {
			kind = "attach-only"
		}
		cdp := p.Get("cdpUrl").String()
		if port := p.Get("cdpPort").Int(); cdp == "" && port > 0 {
			cdp = "port " + strconv.FormatInt(port, 10)
		}
		rows = append(rows, []string{def, p.Get("name").String(), running, kind, cdp, p.Get("color").String(), ""})
	}
	header := []string{"", "Profile", "Running", "Kind", "CDP", "Color", "Error"}
	for _, row := range rows {
		if row[6] != "" {
			return table(w, header, rows)
		}
	}
	for i := range rows {
		rows[i] = rows[i][:6]
	}
	return table(w, header[:6], rows)
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
