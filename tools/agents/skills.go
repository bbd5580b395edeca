package agents

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

// skillHeadMax caps how much of a SKILL.md is read for its frontmatter.
const skillHeadMax = 16 << 10

func init() {
	tools.Register(&tools.Action{
		Where: tools.Gateway, Method: "skills.status", Scope: protocol.ScopeRead,
		Summary: "The agent's skills as the original's skills list reads them",
		Schema: `{"type":"object","properties":{"agentId":{"type":"string"},"sessionKey":{"type":"string"}},
			"additionalProperties":true}`,
		Run: tools.Typed(func(ctx context.Context, env *tools.Env, p struct {
			AgentID string `json:"agentId"`
		}) (any, error) {
			return skillsStatus(env, p.AgentID), nil
		}),
		Hidden: true,
	})
}

// skillsStatus is the original's skills.status report: {workspaceDir,
// managedSkillsDir, skills}. The skills are the SKILL.md folders found
// under <workspace>/skills and <state>/skills, named by their frontmatter.
// This build does not put skills into an agent's prompt, so none is
// eligible or model-visible: the report says what is on disk, not more.
// No skills is a valid answer.
func skillsStatus(env *tools.Env, agentID string) map[string]any {
	cfg := env.Config
	if cfg == nil {
		cfg = config.Empty()
	}
	sub := *env
	sub.Config, sub.Workspace = cfg, ""
	if agentID != "" {
		sub.Subject.AgentID = agentID
	}
	ws := sub.WorkspaceDir()
	managed := filepath.Join(env.StateDir, "skills")
	skills := []map[string]any{}
	skills = append(skills, scanSkills(filepath.Join(ws, "skills"), "openclaw-workspace")...)
	skills = append(skills, scanSkills(managed, "openclaw-managed")...)
	return map[string]any{"workspaceDir": ws, "managedSkillsDir": managed, "skills": skills}
}

func scanSkills(dir, source string) []map[string]any {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []map[string]any
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		file := filepath.Join(dir, e.Name(), "SKILL.md")
		name, desc, ok := skillFront(file)
		if !ok {
			continue
		}
		if name == "" {
			name = e.Name()
		}
		out = append(out, map[string]any{"name": name, "description": desc, "source": source, "bundled": false,
			"filePath": file, "baseDir": filepath.Join(dir, e.Name()), "skillKey": name,
			"eligible": false, "disabled": false, "blockedByAllowlist": false, "blockedByAgentFilter": false,
			"modelVisible": false, "userInvocable": false, "commandVisible": false, "always": false,
			"requirements": map[string]any{"bins": []string{}, "anyBins": []string{}, "env": []string{}, "config": []string{}, "os": []string{}},
			"missing":      map[string]any{"bins": []string{}, "anyBins": []string{}, "env": []string{}, "config": []string{}, "os": []string{}},
			"configChecks": []any{}, "install": []any{}})
	}
	sort.Slice(out, func(i, j int) bool { return out[i]["name"].(string) < out[j]["name"].(string) })
	return out
}

// skillFront reads name and description from a SKILL.md's YAML
// frontmatter (plain "key: value" lines between --- fences).
func skillFront(path string) (name, desc string, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", "", false
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, skillHeadMax))
	first := true
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if first {
			first = false
			if line != "---" {
				return "", "", true
			}
			continue
		}
		if line == "---" {
			break
		}
		k, v, found := strings.Cut(line, ":")
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
	return name, desc, true
}
