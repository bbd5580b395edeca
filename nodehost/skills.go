package nodehost

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/openclaw-go/openclaw/atomicfile"
)

// Node-hosted skills, as the original scans them (src/node-host/skills.ts):
// <state>/skills/<name>/SKILL.md whose frontmatter name equals the
// directory and has a description; at most 64 skills, 64 KiB each and
// 512 KiB in all. They are published with node.skills.update.
const (
	maxSkills          = 64
	maxSkillBytes      = 65536
	maxSkillTotalBytes = 524288
	maxSkillDescChars  = 1024
)

var skillNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,63}$`) }) // built on first use

type skillDescriptor struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Content     string `json:"content"`
}

func scanSkills(h *Host) []skillDescriptor {
	dir := filepath.Join(h.opts.StateDir, "skills")
	entries, err := os.ReadDir(dir)
	out := []skillDescriptor{}
	if err != nil {
		if !os.IsNotExist(err) {
			h.logf("node host skill scan skipped (%s): %v", dir, err)
		}
		return out
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	total := 0
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		file := filepath.Join(dir, e.Name(), "SKILL.md")
		b, err := atomicfile.ReadCapped(file, maxSkillBytes+1)
		if err != nil {
			if !os.IsNotExist(err) {
				h.logf("node host skill skipped (%s): %v", file, err)
			}
			continue
		}
		name, desc, ok := skillFrontmatter(string(b))
		switch {
		case !ok:
			h.logf("node host skill skipped (%s): has invalid or missing frontmatter", file)
			continue
		case name != e.Name():
			h.logf("node host skill skipped (%s): directory, name, and frontmatter must match", file)
			continue
		case !skillNameRE().MatchString(name) || desc == "" || len(desc) > maxSkillDescChars || len(b) > maxSkillBytes:
			h.logf("node host skill skipped (%s): invalid name, description, or size", file)
			continue
		case len(out) >= maxSkills:
			h.logf("node host skill skipped (%s): exceeds %d skills", file, maxSkills)
			continue
		case total+len(b) > maxSkillTotalBytes:
			h.logf("node host skill skipped (%s): exceeds %d total bytes", file, maxSkillTotalBytes)
			continue
		}
		total += len(b)
		out = append(out, skillDescriptor{Name: name, Description: desc, Content: string(b)})
	}
	return out
}

// skillFrontmatter reads name and description from a leading --- block.
func skillFrontmatter(s string) (name, desc string, ok bool) {
	s = strings.TrimPrefix(s, "\ufeff")
	if !strings.HasPrefix(s, "---\n") && !strings.HasPrefix(s, "---\r\n") {
		return "", "", false
	}
	rest := s[strings.Index(s, "\n")+1:]
	end := strings.Index(rest, "\n---")
	if end < 0 {
		return "", "", false
	}
	for _, line := range strings.Split(rest[:end], "\n") {
		k, v, found := strings.Cut(strings.TrimRight(line, "\r"), ":")
		if !found {
			continue
		}
		v = strings.Trim(strings.TrimSpace(v), `"'`)
		switch strings.TrimSpace(k) {
		case "name":
			name = v
		case "description":
			desc = v
		}
	}
	return name, desc, name != ""
}
