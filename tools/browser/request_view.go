package browser

import (
	"encoding/json"
	"path/filepath"
	"strings"
)

// statusView is GET / in the original's shape: our status plus the fields
// its CLI prints that follow from ours (one transport, CDP; one driver,
// the managed/attach "openclaw" one; the browser named after its binary).
func statusView(st map[string]any) any {
	setDefault(st, "transport", "cdp")
	setDefault(st, "driver", "openclaw")
	if exe, _ := st["executablePath"].(string); exe != "" {
		setDefault(st, "detectedExecutablePath", exe)
		setDefault(st, "chosenBrowser", browserKind(exe))
		setDefault(st, "detectedBrowser", browserKind(exe))
	}
	return st
}

func setDefault(m map[string]any, k string, v any) {
	if _, ok := m[k]; !ok {
		m[k] = v
	}
}

// browserKind names a Chromium-family binary as the original's detection
// does (chrome, brave, edge, chromium, canary), "custom" otherwise.
func browserKind(exe string) string {
	b := strings.ToLower(filepath.Base(exe))
	switch {
	case strings.Contains(b, "canary"):
		return "canary"
	case strings.Contains(b, "chromium"):
		return "chromium"
	case strings.Contains(b, "brave"):
		return "brave"
	case strings.Contains(b, "edge"):
		return "edge"
	case strings.Contains(b, "chrome"):
		return "chrome"
	}
	return "custom"
}

// snapshotView is GET /snapshot in the original's shape: format ai carries
// the text in snapshot (as ours); format aria carries nodes
// [{ref, role, name, depth}], which the original CLI prints line by line.
func snapshotView(d map[string]any) any {
	if d["format"] != "aria" {
		return d
	}
	text, _ := d["snapshot"].(string)
	d["nodes"] = ariaNodes(text)
	return d
}

// ariaNode is one node of the original's aria snapshot.
type ariaNode struct {
	Ref   string `json:"ref"`
	Role  string `json:"role"`
	Name  string `json:"name"`
	Depth int    `json:"depth"`
}

// ariaNodes reads the aria text form (`<2*depth spaces>- role "name"
// [ref=axN]`) back into nodes; lines without a ref are not nodes.
func ariaNodes(text string) []ariaNode {
	out := []ariaNode{}
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		if !strings.HasPrefix(trimmed, "- ") {
			continue
		}
		depth := (len(line) - len(trimmed)) / 2
		head := trimmed[2:]
		i := strings.LastIndex(head, " [ref=")
		if i < 0 || !strings.HasSuffix(head, "]") {
			continue
		}
		n := ariaNode{Ref: head[i+len(" [ref=") : len(head)-1], Depth: depth}
		head = head[:i]
		role, rest, _ := strings.Cut(head, " ")
		n.Role = role
		if strings.HasPrefix(rest, `"`) {
			var name string
			if json.NewDecoder(strings.NewReader(rest)).Decode(&name) == nil {
				n.Name = name
			}
		}
		out = append(out, n)
	}
	return out
}
