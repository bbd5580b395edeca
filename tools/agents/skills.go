package agents

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/agent/skills"
	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/texttable"
	"github.com/openclaw-go/openclaw/tools"
)

// The skills methods. skills.status is the original's wire method (its
// CLI's list, info and check all read it); skills.list, skills.info and
// skills.check are this port's projections of the same report, so that
// `openclaw skills list|info|check` go through the one door and their
// --json output is the result. All four load the skills afresh: a
// SKILL.md added or edited is seen by the next call.

type skillsParams struct {
	AgentID string `json:"agentId"`
}

const agentIDProp = `"agentId":{"type":"string","description":"Agent whose workspace and skills allowlist apply (default: the default agent)"}`

// agentFlag spells agentId --agent, as the original CLI does.
var agentFlag = map[string]string{"agentId": "agent"}

func init() {
	tools.Register(&tools.Action{
		Where: tools.Gateway, Method: "skills.status", Scope: protocol.ScopeRead,
		Summary: "The agent's skills as the original's skills list reads them",
		Schema: `{"type":"object","properties":{"agentId":{"type":"string"},"sessionKey":{"type":"string"}},
			"additionalProperties":true}`,
		Run: tools.Typed(func(ctx context.Context, env *tools.Env, p skillsParams) (any, error) {
			return skillsStatus(env, p.AgentID), nil
		}),
		Hidden: true, ReadOnly: true, Idempotent: true,
	})
	tools.Register(&tools.Action{
		Where: tools.Either, Method: "skills.list", Command: []string{"skills", "list"}, Flags: agentFlag, Scope: protocol.ScopeRead,
		Summary:  "List the skills found for an agent, whether each is ready, and what it lacks",
		Examples: []string{"openclaw skills list", "openclaw skills list --eligible --json", "openclaw skills list --agent work"},
		Schema: `{"type":"object","properties":{` + agentIDProp + `,
			"eligible":{"type":"boolean","description":"Only the skills ready for this agent"}},"additionalProperties":false}`,
		Run: tools.Typed(func(ctx context.Context, env *tools.Env, p struct {
			AgentID  string `json:"agentId"`
			Eligible bool   `json:"eligible"`
		}) (any, error) {
			rep := skillsStatus(env, p.AgentID)
			out := []map[string]any{}
			for _, s := range rep.Skills {
				if p.Eligible && !(s.Eligible && !s.BlockedByAgentFilter) {
					continue
				}
				out = append(out, map[string]any{"name": s.Name, "description": s.Description, "emoji": s.Emoji,
					"eligible": s.Eligible, "disabled": s.Disabled, "blockedByAllowlist": s.BlockedByAllowlist,
					"blockedByAgentFilter": s.BlockedByAgentFilter, "modelVisible": s.ModelVisible, "userInvocable": s.UserInvocable,
					"commandVisible": s.CommandVisible, "source": s.Source, "bundled": s.Bundled, "primaryEnv": s.PrimaryEnv,
					"homepage": s.Homepage, "filePath": s.FilePath, "missing": s.Missing})
			}
			return map[string]any{"workspaceDir": rep.WorkspaceDir, "managedSkillsDir": rep.ManagedSkillsDir, "skills": out,
				"diagnostics": rep.Diagnostics}, nil
		}),
		Render:   renderSkillsList,
		ReadOnly: true, Idempotent: true,
	})
	tools.Register(&tools.Action{
		Where: tools.Either, Method: "skills.info", Command: []string{"skills", "info"}, Flags: agentFlag, Args: []string{"name"}, Scope: protocol.ScopeRead,
		Summary:  "Show one skill: where it is, whether it is ready, each requirement and how to install what is missing",
		Examples: []string{"openclaw skills info weather", "openclaw skills info github --json"},
		Schema: `{"type":"object","required":["name"],"properties":{"name":{"type":"string","minLength":1,"description":"Skill name or skills.entries key"},
			` + agentIDProp + `},"additionalProperties":false}`,
		Run: tools.Typed(func(ctx context.Context, env *tools.Env, p struct {
			Name    string `json:"name"`
			AgentID string `json:"agentId"`
		}) (any, error) {
			s := skillsStatus(env, p.AgentID).Find(p.Name)
			if s == nil {
				return nil, tools.Errorf(tools.CodeNotFound, "skill %q not found (or the name matches several): run `openclaw skills list` to see the skills", p.Name)
			}
			return s, nil
		}),
		Render:   renderSkillInfo,
		ReadOnly: true, Idempotent: true,
	})
	tools.Register(&tools.Action{
		Where: tools.Either, Method: "skills.check", Command: []string{"skills", "check"}, Flags: agentFlag, Scope: protocol.ScopeRead,
		Summary:  "Check every skill: how many are ready, visible to the model, disabled, and what each of the others lacks",
		Examples: []string{"openclaw skills check", "openclaw skills check --json"},
		Schema:   `{"type":"object","properties":{` + agentIDProp + `},"additionalProperties":false}`,
		Run: tools.Typed(func(ctx context.Context, env *tools.Env, p skillsParams) (any, error) {
			return skillsCheck(skillsStatus(env, p.AgentID)), nil
		}),
		Render:   renderSkillsCheck,
		ReadOnly: true, Idempotent: true,
	})
}

// skillsStatus is the original's skills.status report for an agent (the
// caller's by default): {workspaceDir, managedSkillsDir, skills}, each
// skill with its eligibility and what it is missing.
func skillsStatus(env *tools.Env, agentID string) *skills.Report {
	cfg := env.Config
	if cfg == nil {
		cfg = config.Empty()
	}
	sub := *env
	sub.Config, sub.Workspace = cfg, ""
	if agentID != "" {
		sub.Subject.AgentID = agentID
	}
	return skills.Status(skills.Inputs{Config: cfg, StateDir: env.StateDir, Workspace: sub.WorkspaceDir(), AgentID: sub.AgentID()})
}

// skillsCheck is the original CLI's `skills check --json` summary.
func skillsCheck(rep *skills.Report) map[string]any {
	names := func(keep func(*skills.SkillStatus) bool) []string {
		out := []string{}
		for _, s := range rep.Skills {
			if keep(s) {
				out = append(out, s.Name)
			}
		}
		return out
	}
	eligible := names(func(s *skills.SkillStatus) bool { return s.Eligible })
	visible := names(func(s *skills.SkillStatus) bool { return s.ModelVisible })
	command := names(func(s *skills.SkillStatus) bool { return s.CommandVisible })
	disabled := names(func(s *skills.SkillStatus) bool { return s.Disabled })
	blocked := names(func(s *skills.SkillStatus) bool { return s.BlockedByAllowlist && !s.Disabled })
	filtered := names(func(s *skills.SkillStatus) bool { return s.BlockedByAgentFilter })
	hidden := []map[string]any{}
	missing := []map[string]any{}
	for _, s := range rep.Skills {
		if s.Eligible && !s.BlockedByAgentFilter && !s.ModelVisible {
			hidden = append(hidden, map[string]any{"name": s.Name, "reason": "disable-model-invocation"})
		}
		if s.NeedsSetup() {
			missing = append(missing, map[string]any{"name": s.Name, "missing": s.Missing, "install": s.Install})
		}
	}
	return map[string]any{"agentId": rep.AgentID, "agentSkillFilter": rep.AgentSkillFilter,
		"workspaceDir": rep.WorkspaceDir, "managedSkillsDir": rep.ManagedSkillsDir,
		"summary": map[string]any{"total": len(rep.Skills), "eligible": len(eligible), "modelVisible": len(visible),
			"commandVisible": len(command), "disabled": len(disabled), "blocked": len(blocked), "agentFiltered": len(filtered),
			"notInjected": len(hidden), "missingRequirements": len(missing)},
		"eligible": eligible, "modelVisible": visible, "commandVisible": command, "disabled": disabled, "blocked": blocked,
		"agentFiltered": filtered, "notInjected": hidden, "missingRequirements": missing, "diagnostics": rep.Diagnostics}
}

func skillState(s gjson.Result) string {
	switch {
	case s.Get("disabled").Bool():
		return "disabled"
	case s.Get("blockedByAllowlist").Bool():
		return "blocked"
	case s.Get("blockedByAgentFilter").Bool():
		return "excluded"
	case s.Get("eligible").Bool():
		return "ready"
	}
	return "needs setup"
}

// missingText is "bins: gh; env: GH_TOKEN" from a result's missing object.
func missingText(m gjson.Result) string {
	var parts []string
	for _, k := range []string{"bins", "anyBins", "env", "config", "os"} {
		var vs []string
		for _, v := range m.Get(k).Array() {
			vs = append(vs, v.String())
		}
		if len(vs) > 0 {
			parts = append(parts, k+": "+strings.Join(vs, ", "))
		}
	}
	return strings.Join(parts, "; ")
}

func renderDiagnostics(w io.Writer, r gjson.Result) error {
	for _, d := range r.Get("diagnostics").Array() {
		if _, err := fmt.Fprintf(w, "skipped %s: %s\n", d.Get("path").String(), d.Get("message").String()); err != nil {
			return err
		}
	}
	return nil
}

func renderSkillsList(w io.Writer, r gjson.Result) error {
	list := r.Get("skills").Array()
	if len(list) == 0 {
		if _, err := fmt.Fprintf(w, "No skills found in %s/skills or %s.\n", r.Get("workspaceDir").String(), r.Get("managedSkillsDir").String()); err != nil {
			return err
		}
		return renderDiagnostics(w, r)
	}
	ready := 0
	var rows [][]string
	for _, s := range list {
		if s.Get("eligible").Bool() && !s.Get("blockedByAgentFilter").Bool() {
			ready++
		}
		rows = append(rows, []string{skillState(s), s.Get("name").String(), texttable.Flat(s.Get("description").String()),
			s.Get("source").String(), missingText(s.Get("missing"))})
	}
	lines, err := texttable.Lines([]string{"Status", "Skill", "Description", "Source", "Missing"}, rows)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "Skills (%d/%d ready)\n%s\n", ready, len(list), strings.Join(lines, "\n")); err != nil {
		return err
	}
	return renderDiagnostics(w, r)
}

func renderSkillInfo(w io.Writer, s gjson.Result) error {
	yes := map[bool]string{true: "yes", false: "no"}
	var b strings.Builder
	fmt.Fprintf(&b, "%s  %s\n\n%s\n\n", s.Get("name").String(), skillState(s), s.Get("description").String())
	fmt.Fprintf(&b, "Source: %s\nPath: %s\n", s.Get("source").String(), s.Get("filePath").String())
	if h := s.Get("homepage").String(); h != "" {
		fmt.Fprintf(&b, "Homepage: %s\n", h)
	}
	fmt.Fprintf(&b, "Visible to model: %s\nAvailable as command: %s\n", yes[s.Get("modelVisible").Bool()], yes[s.Get("commandVisible").Bool()])
	if s.Get("blockedByAgentFilter").Bool() {
		b.WriteString("Agent allowlist: excludes this skill\n")
	}
	if s.Get("disabled").Bool() {
		fmt.Fprintf(&b, "Disabled by skills.entries.%s.enabled=false\n", s.Get("skillKey").String())
	}
	if pe := s.Get("primaryEnv").String(); pe != "" {
		fmt.Fprintf(&b, "Primary env: %s\n", pe)
	}
	groups := []struct{ key, label string }{{"bins", "Binaries"}, {"anyBins", "Any binaries"}, {"env", "Environment"}, {"config", "Config"}, {"os", "OS"}}
	head := false
	for _, g := range groups {
		req := s.Get("requirements." + g.key).Array()
		if len(req) == 0 {
			continue
		}
		if !head {
			b.WriteString("\nRequirements:\n")
			head = true
		}
		missing := map[string]bool{}
		for _, m := range s.Get("missing." + g.key).Array() {
			missing[m.String()] = true
		}
		var cells []string
		if g.key == "anyBins" || g.key == "os" {
			var vs []string
			for _, v := range req {
				vs = append(vs, v.String())
			}
			mark := "ok"
			if len(missing) > 0 {
				mark = "MISSING"
			}
			cells = append(cells, mark+" ("+strings.Join(vs, ", ")+")")
		} else {
			for _, v := range req {
				mark := "ok"
				if missing[v.String()] {
					mark = "MISSING"
				}
				cells = append(cells, v.String()+" "+mark)
			}
		}
		fmt.Fprintf(&b, "  %s: %s\n", g.label, strings.Join(cells, ", "))
	}
	if opts := s.Get("install").Array(); len(opts) > 0 && !s.Get("eligible").Bool() {
		b.WriteString("\nInstall options:\n")
		for _, o := range opts {
			fmt.Fprintf(&b, "  -> %s\n", o.Get("label").String())
		}
	}
	if pe := s.Get("primaryEnv").String(); pe != "" {
		for _, m := range s.Get("missing.env").Array() {
			if m.String() == pe {
				fmt.Fprintf(&b, "\nAPI key: set %s, or `openclaw config set 'skills.entries.%s.apiKey' YOUR_KEY`\n", pe, s.Get("skillKey").String())
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func renderSkillsCheck(w io.Writer, r gjson.Result) error {
	var b strings.Builder
	sum := r.Get("summary")
	b.WriteString("Skills status check\n")
	if a := r.Get("agentId").String(); a != "" {
		fmt.Fprintf(&b, "Agent: %s\n", a)
	}
	fmt.Fprintf(&b, "\nTotal: %d\nEligible: %d\nVisible to model: %d\nAvailable as command: %d\nDisabled: %d\nBlocked by allowlist: %d\nExcluded by agent allowlist: %d\nMissing requirements: %d\n",
		sum.Get("total").Int(), sum.Get("eligible").Int(), sum.Get("modelVisible").Int(), sum.Get("commandVisible").Int(),
		sum.Get("disabled").Int(), sum.Get("blocked").Int(), sum.Get("agentFiltered").Int(), sum.Get("missingRequirements").Int())
	section := func(title string, items []gjson.Result, line func(gjson.Result) string) {
		if len(items) == 0 {
			return
		}
		fmt.Fprintf(&b, "\n%s:\n", title)
		for _, it := range items {
			fmt.Fprintf(&b, "  %s\n", line(it))
		}
	}
	plain := func(x gjson.Result) string { return x.String() }
	section("Ready and visible to model", r.Get("modelVisible").Array(), plain)
	section("Ready but hidden from the model (disable-model-invocation)", r.Get("notInjected").Array(), func(x gjson.Result) string { return x.Get("name").String() })
	section("Disabled (skills.entries.<key>.enabled=false)", r.Get("disabled").Array(), plain)
	section("Excluded by agent allowlist", r.Get("agentFiltered").Array(), plain)
	section("Missing requirements", r.Get("missingRequirements").Array(), func(x gjson.Result) string {
		return x.Get("name").String() + " (" + missingText(x.Get("missing")) + ")"
	})
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	return renderDiagnostics(w, r)
}
