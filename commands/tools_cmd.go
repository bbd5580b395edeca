package commands

import (
	"fmt"
	"github.com/openclaw-go/openclaw/config"
	"io"
	"strings"

	"github.com/openclaw-go/openclaw/policy"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/tidwall/gjson"
	"github.com/urfave/cli/v2"
)

// toolInfo is one row of `openclaw tools list`.
type toolInfo struct {
	Name     string   `json:"name"`
	Command  string   `json:"command"`
	Groups   []string `json:"groups"`
	Profiles []string `json:"profiles"`
	Where    string   `json:"where"`
	Actions  []string `json:"actions,omitempty"`
	Summary  string   `json:"summary"`
}

func (r *runtime) toolsCommand() *cli.Command {
	return &cli.Command{
		Name:  "tools",
		Usage: "list the tools, show their agent-facing schemas and the effective tool policy",
		Subcommands: []*cli.Command{
			{
				Name:        "list",
				Usage:       "every registered tool with its groups, profiles, where it runs and summary",
				Description: "EXAMPLES:\n   openclaw tools list\n   openclaw tools list --json | jq -r '.[].name'",
				Flags:       outputFlags(),
				Action: func(c *cli.Context) error {
					return r.emit(c, r.renderToolList, encodeToolList(listTools()))
				},
			},
			{
				Name:        "schema",
				Usage:       "the agent-facing JSON Schema of a tool (the document tools.catalog serves)",
				ArgsUsage:   "<tool>",
				Description: "EXAMPLES:\n   openclaw tools schema read\n   openclaw tools schema browser --query properties.action.enum",
				Flags:       outputFlags(),
				Action: func(c *cli.Context) error {
					if c.NArg() != 1 {
						return usageError("tools schema takes one tool name (see `openclaw tools list`)")
					}
					s, err := tools.AgentSchema(c.Args().First())
					if err != nil {
						if s := tools.Closest(c.Args().First(), tools.ToolNames()); len(s) > 0 {
							err = tools.Errorf(tools.CodeUnknownTool, "%v; did you mean %q?", err, s[0])
						}
						return err
					}
					return r.emit(c, nil, s)
				},
			},
			{
				Name:  "effective",
				Usage: "the tool set after the policy pipeline, and which step removed each other tool",
				Description: "Runs tools.profile → tools.byProvider → tools.allow/deny → agents.list[].tools for one agent\n" +
					"and provider/model.\n\nEXAMPLES:\n   openclaw tools effective\n   openclaw tools effective --agent work --provider openai/gpt-5 --json",
				Flags: append(outputFlags(),
					&cli.StringFlag{Name: "agent", Usage: "agent `ID` (default main)"},
					&cli.StringFlag{Name: "provider", Usage: "`PROVIDER` or PROVIDER/MODEL for tools.byProvider"},
				),
				Action: func(c *cli.Context) error {
					env, err := r.Env(c)
					if err != nil {
						return err
					}
					env.Warn = nil
					env.Subject.AgentID = c.String("agent")
					if id := c.String("agent"); id != "" && !agentConfigured(env.Config, id) {
						fmt.Fprintf(r.stderr, "note: agent %q is not in agents.list: this is the tool set of the defaults (tools.*) alone\n", id)
					}
					if p := c.String("provider"); p != "" {
						prov, model, _ := strings.Cut(p, "/")
						env.Subject.Provider, env.Subject.Model = prov, model
					}
					res := tools.EffectiveRegistered(env) // registered tools only; Note names the rest once
					out := map[string]any{
						"agentId": env.AgentID(), "provider": env.Subject.Provider, "model": env.Subject.Model,
						"allowed": nonNil(res.Allowed), "removed": res.Removed, "warnings": nonNil(res.Warnings),
						"note": res.Note,
					}
					return r.emit(c, r.renderEffective, mustJSON(out))
				},
			},
		},
	}
}

// agentConfigured reports whether id names an agents.list entry, or is the
// default agent that exists without one.
func agentConfigured(cfg *config.Config, id string) bool {
	if id == tools.DefaultAgentID(cfg) {
		return true
	}
	var list []struct {
		ID string `json:"id"`
	}
	_ = cfg.Decode("agents.list", &list)
	for _, a := range list {
		if a.ID == id {
			return true
		}
	}
	return false
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func listTools() []toolInfo {
	out := []toolInfo{}
	for _, name := range tools.ToolNames() {
		acts := tools.ToolActions(name)
		multi := len(acts) > 1 || acts[0].Verb != ""
		ti := toolInfo{
			Name:     name,
			Command:  "openclaw " + strings.Join(commandPath(name, "", false), " "),
			Groups:   nonNil(policy.GroupsOf(name)),
			Profiles: nonNil(policy.ProfilesOf(name)),
			Where:    acts[0].Where.String(),
			Summary:  acts[0].Summary,
		}
		if multi {
			ti.Command = "openclaw " + kebab(name) + " <action>"
			if prefix := commonCommand(acts); len(prefix) > 0 {
				ti.Command = "openclaw " + strings.Join(prefix, " ") + " <action>"
			}
			ti.Summary = "the " + name + " tool (" + fmt.Sprint(len(acts)) + " actions)"
			for _, a := range acts {
				ti.Actions = append(ti.Actions, a.Verb)
			}
		}
		out = append(out, ti)
	}
	return out
}

// commonCommand is the words every action's Command starts with (nil when
// the tool keeps the default paths).
func commonCommand(acts []*tools.Action) []string {
	var prefix []string
	for i, a := range acts {
		if len(a.Command) < 2 {
			return nil
		}
		words := a.Command[:len(a.Command)-1]
		if i == 0 {
			prefix = words
			continue
		}
		n := 0
		for n < len(prefix) && n < len(words) && prefix[n] == words[n] {
			n++
		}
		prefix = prefix[:n]
	}
	return prefix
}

func (r *runtime) renderToolList(w io.Writer, res gjson.Result) error {
	var rows [][]string
	res.ForEach(func(_, t gjson.Result) bool {
		rows = append(rows, []string{
			t.Get("name").String(),
			joinStrings(t.Get("groups")),
			joinStrings(t.Get("profiles")),
			t.Get("where").String(),
			t.Get("summary").String(),
		})
		return true
	})
	return writeTable(w, r.io.Palette(false), []string{"tool", "groups", "profiles", "runs", "summary"}, rows)
}

func (r *runtime) renderEffective(w io.Writer, res gjson.Result) error {
	p := r.io.Palette(false)
	var rows [][]string
	for _, t := range res.Get("allowed").Array() {
		rows = append(rows, []string{t.String(), p.Status("allowed"), ""})
	}
	for _, t := range res.Get("removed").Array() {
		rows = append(rows, []string{t.Get("tool").String(), p.Status("removed"), t.Get("step").String()})
	}
	if err := writeTable(w, p, []string{"tool", "status", "removed by"}, rows); err != nil {
		return err
	}
	for _, wmsg := range res.Get("warnings").Array() {
		if _, err := w.Write([]byte(p.Yellow("warning:") + " " + wmsg.String() + "\n")); err != nil {
			return err
		}
	}
	if note := res.Get("note").String(); note != "" {
		if _, err := w.Write([]byte("note: " + note + "\n")); err != nil {
			return err
		}
	}
	return nil
}

func joinStrings(arr gjson.Result) string {
	var parts []string
	for _, x := range arr.Array() {
		parts = append(parts, x.String())
	}
	return strings.Join(parts, ",")
}
