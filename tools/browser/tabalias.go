package browser

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-rod/rod/lib/proto"
	"github.com/openclaw-go/openclaw/flock"
	"github.com/openclaw-go/openclaw/tools"
)

// Tab aliases: each tab the browser lists gets a stable handle (t1, t2, …,
// never reused while the browser runs) and may get a label. They live in
// the profile dir ("tab-aliases.json"), so every CLI process and the
// gateway see the same names; stop removes the file. Writers take an
// flock on "tab-aliases.lock", so two processes never hand out one handle
// twice.

const tabAliasFile = "tab-aliases.json"

// tabAlias is one tab's handle and optional label.
type tabAlias struct {
	TabID string `json:"tabId"`
	Label string `json:"label,omitempty"`
}

// tabAliases is the file: the next handle number and the live tabs'.
type tabAliases struct {
	Next int                  `json:"next"`
	Tabs map[string]*tabAlias `json:"tabs"`
}

// validLabel checks a label as the original does (1-64 of letters,
// digits, _ . : -) after trimming it.
func validLabel(label string) (string, error) {
	l := strings.TrimSpace(label)
	ok := l != "" && len(l) <= 64
	for i := 0; ok && i < len(l); i++ {
		c := l[i]
		ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == ':' || c == '-'
	}
	if !ok {
		return "", tools.Errorf(tools.CodeInvalidParams, "tab label must be 1-64 chars and use only letters, numbers, _, ., :, or -")
	}
	return l, nil
}

func (s *session) aliasPath() string { return filepath.Join(s.p.Dir, tabAliasFile) }

// readAliases reads the alias file; a missing or unreadable one is empty.
func (s *session) readAliases() *tabAliases {
	a := &tabAliases{Next: 1, Tabs: map[string]*tabAlias{}}
	b, err := os.ReadFile(s.aliasPath())
	if err != nil || json.Unmarshal(b, a) != nil || a.Tabs == nil {
		return &tabAliases{Next: 1, Tabs: map[string]*tabAlias{}}
	}
	if a.Next < 1 {
		a.Next = 1
	}
	return a
}

// syncAliases brings the alias file in line with the live tabs: handles
// of closed tabs are dropped, new tabs get the next handles (in list
// order), and, when label is set, target gets it (taken from any other
// tab that had it). It writes only when something changed.
func (s *session) syncAliases(ctx context.Context, live []*proto.TargetTargetInfo, target proto.TargetTargetID, label string) (*tabAliases, error) {
	if err := os.MkdirAll(s.p.Dir, 0o700); err != nil {
		return nil, tools.Errorf(tools.CodeFailed, "browser tab aliases: %v", err)
	}
	unlock, err := flock.Lock(ctx, filepath.Join(s.p.Dir, "tab-aliases.lock"))
	if err != nil {
		return nil, tools.Errorf(tools.CodeFailed, "browser tab aliases: %v", err)
	}
	defer unlock()
	a := s.readAliases()
	changed := false
	alive := map[string]bool{}
	for _, t := range live {
		alive[string(t.TargetID)] = true
	}
	for id := range a.Tabs {
		if !alive[id] {
			delete(a.Tabs, id)
			changed = true
		}
	}
	for _, t := range live {
		if a.Tabs[string(t.TargetID)] == nil {
			a.Tabs[string(t.TargetID)] = &tabAlias{TabID: "t" + strconv.Itoa(a.Next)}
			a.Next++
			changed = true
		}
	}
	if label != "" {
		for id, t := range a.Tabs {
			if t.Label == label && id != string(target) {
				t.Label = ""
				changed = true
			}
		}
		if t := a.Tabs[string(target)]; t != nil && t.Label != label {
			t.Label = label
			changed = true
		}
	}
	if changed {
		b, err := json.Marshal(a)
		if err != nil {
			return nil, err
		}
		if err := writeFileAtomic(s.aliasPath(), b); err != nil {
			return nil, tools.Errorf(tools.CodeFailed, "browser tab aliases: %v", err)
		}
	}
	return a, nil
}

// resolveTab picks the tab a targetId names, in the order label, tab
// handle (t1), raw target id, then a unique prefix of a raw id (any case).
func resolveTab(ts []*proto.TargetTargetInfo, a *tabAliases, ref string) (*proto.TargetTargetInfo, error) {
	needle := strings.TrimSpace(ref)
	byID := map[string]*proto.TargetTargetInfo{}
	for _, t := range ts {
		byID[string(t.TargetID)] = t
	}
	for _, match := range []func(id string, al *tabAlias) bool{
		func(_ string, al *tabAlias) bool { return al.Label == needle },
		func(_ string, al *tabAlias) bool { return al.TabID == needle },
	} {
		for id, al := range a.Tabs {
			if t := byID[id]; t != nil && match(id, al) {
				return t, nil
			}
		}
	}
	if t := byID[needle]; t != nil {
		return t, nil
	}
	var pick *proto.TargetTargetInfo
	lower := strings.ToLower(needle)
	for _, t := range ts {
		if strings.HasPrefix(strings.ToLower(string(t.TargetID)), lower) {
			if pick != nil {
				return nil, tools.Errorf(tools.CodeInvalidParams, "tab %q is ambiguous: use more of the id, its tabId or a label (see `openclaw browser tabs`)", ref)
			}
			pick = t
		}
	}
	if pick == nil {
		return nil, tools.Errorf(tools.CodeNotFound, "tab %q not found: list tabs with `openclaw browser tabs`", ref)
	}
	return pick, nil
}
