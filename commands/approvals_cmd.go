package commands

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/urfave/cli/v2"

	"github.com/openclaw-go/openclaw/approvalsfile"
	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/policy"
	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

// approvalsCommand is `openclaw approvals get|set|allow|deny`: the host exec
// approvals file (~/.openclaw/exec-approvals.json, the original's format)
// that every exec on this machine is checked against.
func (r *runtime) approvalsCommand() *cli.Command {
	agentFlag := &cli.StringFlag{Name: "agent", Value: "main", Usage: "the agent `ID` whose entry to change"}
	return &cli.Command{
		Name:  "approvals",
		Usage: "exec approvals on this host: security, ask and the allowlist",
		Description: "security deny|allowlist|full and ask off|on-miss|always; the tightest of config, this file and the call wins.\n\n" +
			"EXAMPLES:\n   openclaw approvals get\n   openclaw approvals set --security allowlist --ask on-miss\n" +
			"   openclaw approvals allow '~/bin/*' \n   openclaw approvals allow rg --arg-pattern '^-n '\n   openclaw approvals deny rg\n" +
			"   openclaw approvals pending\n   openclaw approvals resolve 3f2a9c1e allow-once",
		Subcommands: []*cli.Command{
			r.approvalsPendingCommand(),
			r.approvalsResolveCommand(),
			{
				Name: "get", Usage: "print the approvals file (and the agent's effective values); --gateway: the gateway host's; --node: a node host's",
				Flags: append(append(outputFlags(), agentFlag, &cli.BoolFlag{Name: "gateway", Usage: "read the gateway host's file (exec.approvals.get)"},
					nodeFlag), connFlags()...),
				Action: func(c *cli.Context) error {
					if node := c.String("node"); node != "" {
						res, err := r.callScopes(c, "exec.approvals.node.get", []string{protocol.ScopeAdmin}, mustJSON(map[string]any{"nodeId": node}), 30*time.Second)
						if err != nil {
							return err
						}
						return r.emit(c, nil, res)
					}
					if c.Bool("gateway") {
						res, err := r.callScopes(c, "exec.approvals.get", []string{protocol.ScopeAdmin}, json.RawMessage(`{}`), 10*time.Second)
						if err != nil {
							return err
						}
						return r.emit(c, nil, res)
					}
					doc, path, err := r.loadApprovals(c)
					if err != nil {
						return err
					}
					sec, ask, allow := doc.Effective(c.String("agent"))
					return r.emit(c, renderApprovalsGet, mustJSON(map[string]any{"path": path, "file": doc,
						"effective": map[string]any{"agent": c.String("agent"), "security": sec, "ask": ask, "allowlist": allow}}))
				},
			},
			{
				Name: "set", Usage: "set security, ask or askFallback for an agent (or the defaults), or replace the file (--file); --gateway: the gateway host's",
				Description: "With --gateway the change goes to the gateway host's file: the current one is read with exec.approvals.get\n" +
					"and written back with exec.approvals.set under its hash, so a change made in between is refused, not lost.\n\n" +
					"EXAMPLES:\n   openclaw approvals set --security allowlist --ask on-miss\n   openclaw approvals set --gateway --defaults --security deny\n" +
					"   openclaw approvals set --gateway --file approvals.json",
				Flags: append(append(outputFlags(), agentFlag,
					&cli.BoolFlag{Name: "defaults", Usage: "change the defaults block instead of an agent"},
					&cli.StringFlag{Name: "security", Usage: "deny|allowlist|full"},
					&cli.StringFlag{Name: "ask", Usage: "off|on-miss|always"},
					&cli.StringFlag{Name: "ask-fallback", Usage: "deny|allowlist|full"},
					&cli.StringFlag{Name: "file", Usage: "replace the whole file with this JSON/JSON5 `PATH`"},
					&cli.BoolFlag{Name: "stdin", Usage: "replace the whole file with JSON/JSON5 read from stdin"},
					&cli.BoolFlag{Name: "gateway", Usage: "change the gateway host's file (exec.approvals.get, then exec.approvals.set)"}, nodeFlag,
					&cli.StringFlag{Name: "base-hash", Usage: "with --gateway: write only if the file still has this `HASH` (from approvals get --gateway)"}),
					connFlags()...),
				Action: func(c *cli.Context) error {
					check := func(flag string, allowed ...string) error {
						if v := c.String(flag); v != "" && !slices.Contains(allowed, v) {
							return tools.Errorf(tools.CodeUsage, "--%s must be one of %v, got %q", flag, allowed, v)
						}
						return nil
					}
					for _, e := range []error{check("security", "deny", "allowlist", "full"), check("ask", "off", "on-miss", "always"),
						check("ask-fallback", "deny", "allowlist", "full")} {
						if e != nil {
							return e
						}
					}
					replace, err := r.approvalsInput(c)
					if err != nil {
						return err
					}
					if c.String("base-hash") != "" && !c.Bool("gateway") && c.String("node") == "" {
						return tools.Errorf(tools.CodeUsage, "--base-hash needs --gateway or --node")
					}
					edit := func(doc *policy.ExecApprovals) {
						a := &doc.Defaults
						if !c.Bool("defaults") {
							a = doc.Agent(c.String("agent"))
						}
						if v := c.String("security"); v != "" {
							a.Security = v
						}
						if v := c.String("ask"); v != "" {
							a.Ask = v
						}
						if v := c.String("ask-fallback"); v != "" {
							a.AskFallback = v
						}
					}
					if c.Bool("gateway") || c.String("node") != "" {
						return r.setGatewayApprovals(c, replace, edit)
					}
					if replace != nil {
						return r.changeApprovals(c, func(doc *policy.ExecApprovals) { *doc = *replace; doc.Version = 1 })
					}
					return r.changeApprovals(c, edit)
				},
			},
			{
				Name: "allow", Usage: "add allowlist entries (a path glob such as ~/bin/*, or a bare name such as rg)", ArgsUsage: "<pattern>...",
				Flags: append(outputFlags(), agentFlag, &cli.StringFlag{Name: "arg-pattern", Usage: "`REGEX` the arguments must match"},
					&cli.StringSliceFlag{Name: "env", Usage: "environment variable `KEY` a call may set for this program (repeatable; any other override is a miss)"}),
				Action: func(c *cli.Context) error {
					if c.NArg() == 0 {
						return tools.Errorf(tools.CodeUsage, "approvals allow needs a pattern")
					}
					return r.changeApprovals(c, func(doc *policy.ExecApprovals) {
						a := doc.Agent(c.String("agent"))
						for _, p := range c.Args().Slice() {
							a.Allowlist = append(a.Allowlist, policy.AllowlistEntry{Pattern: p, ArgPattern: c.String("arg-pattern"), Env: c.StringSlice("env")})
						}
					})
				},
			},
			{
				Name: "deny", Usage: "remove allowlist entries with these patterns", ArgsUsage: "<pattern>...",
				Flags: append(outputFlags(), agentFlag),
				Action: func(c *cli.Context) error {
					if c.NArg() == 0 {
						return tools.Errorf(tools.CodeUsage, "approvals deny needs a pattern")
					}
					return r.changeApprovals(c, func(doc *policy.ExecApprovals) {
						a := doc.Agent(c.String("agent"))
						a.Allowlist = slices.DeleteFunc(a.Allowlist, func(e policy.AllowlistEntry) bool {
							return slices.Contains(c.Args().Slice(), e.Pattern)
						})
					})
				},
			},
		},
	}
}

func (r *runtime) loadApprovals(c *cli.Context) (*policy.ExecApprovals, string, error) {
	p, err := r.Paths(c)
	if err != nil {
		return nil, "", err
	}
	path := approvalsfile.Path(p.StateDir)
	doc, err := approvalsfile.Load(path)
	return doc, path, err
}

// changeApprovals edits the file under the writers' lock (the gateway's
// allow-always and exec.approvals.set take the same one) and prints it.
func (r *runtime) changeApprovals(c *cli.Context, edit func(*policy.ExecApprovals)) error {
	p, err := r.Paths(c)
	if err != nil {
		return err
	}
	path := approvalsfile.Path(p.StateDir)
	snap, err := approvalsfile.Update(c.Context, path, func(s *approvalsfile.Snapshot) error {
		edit(s.Doc)
		return nil
	})
	if err != nil {
		return err
	}
	b, _ := json.Marshal(map[string]any{"path": path, "file": snap.Doc})
	return r.emit(c, nil, b)
}

// approvalsPendingCommand lists the gateway's pending exec approvals.
func (r *runtime) approvalsPendingCommand() *cli.Command {
	return &cli.Command{
		Name: "pending", Usage: "list the gateway's pending exec approval requests",
		Flags: append(outputFlags(), connFlags()...),
		Action: func(c *cli.Context) error {
			res, err := r.callScopes(c, "exec.approval.list", []string{protocol.ScopeApprovals}, json.RawMessage(`{}`), 10*time.Second)
			if err != nil {
				return err
			}
			return r.emit(c, renderPending, res)
		},
	}
}

// renderApprovalsGet shows the approvals file for a person: where it is,
// the agent's effective security, ask and allowlist.
func renderApprovalsGet(w io.Writer, res gjson.Result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Approvals file: %s\n", res.Get("path").String())
	eff := res.Get("effective")
	unset := func(v string) string {
		if v == "" {
			return "(not set: tools.exec default)"
		}
		return v
	}
	agent := eff.Get("agent").String()
	if agent == "" {
		agent = "main"
	}
	fmt.Fprintf(&b, "Agent %s: security %s, ask %s\n", agent, unset(eff.Get("security").String()), unset(eff.Get("ask").String()))
	list := eff.Get("allowlist").Array()
	if len(list) == 0 {
		b.WriteString("Allowlist: empty\n")
	} else {
		fmt.Fprintf(&b, "Allowlist (%d):\n", len(list))
		for _, e := range list {
			fmt.Fprintf(&b, "  %s\n", e.Get("pattern").String())
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func renderPending(w io.Writer, res gjson.Result) error {
	if len(res.Array()) == 0 {
		_, err := fmt.Fprintln(w, "No pending approvals.")
		return err
	}
	for _, a := range res.Array() {
		id := a.Get("id").String()
		fmt.Fprintf(w, "%s  %s  (cwd %s, expires %s)\n", id, a.Get("request.command").String(), a.Get("request.cwd").String(),
			time.UnixMilli(a.Get("expiresAtMs").Int()).Format(time.TimeOnly))
		// Every env override, exactly: it runs with the command.
		a.Get("request.env").ForEach(func(k, v gjson.Result) bool {
			fmt.Fprintf(w, "   env %s=%q\n", k.String(), v.String())
			return true
		})
		decisions := []string{}
		for _, d := range a.Get("request.allowedDecisions").Array() {
			decisions = append(decisions, d.String())
		}
		if len(decisions) == 0 {
			decisions = []string{"allow-once", "allow-always", "deny"}
		}
		fmt.Fprintf(w, "   approve: openclaw approvals resolve %s %s\n", id, strings.Join(decisions, "|"))
	}
	return nil
}

// approvalsResolveCommand resolves a pending request on the gateway: an
// allowed command then runs there (in the background unless its caller
// waits), a denied one never does.
func (r *runtime) approvalsResolveCommand() *cli.Command {
	return &cli.Command{
		Name: "resolve", Usage: "resolve a pending exec approval: allow-once, allow-always or deny",
		ArgsUsage: "<id> <allow-once|allow-always|deny>",
		Flags:     append(outputFlags(), connFlags()...),
		Action: func(c *cli.Context) error {
			if c.NArg() != 2 {
				return tools.Errorf(tools.CodeUsage, "approvals resolve takes an id and a decision (allow-once, allow-always or deny)")
			}
			decision := c.Args().Get(1)
			if !slices.Contains([]string{"allow-once", "allow-always", "deny"}, decision) {
				return tools.Errorf(tools.CodeUsage, "decision must be allow-once, allow-always or deny, got %q", decision)
			}
			params := mustJSON(map[string]any{"id": c.Args().First(), "decision": decision})
			res, err := r.callScopes(c, "exec.approval.resolve", []string{protocol.ScopeApprovals}, params, 10*time.Second)
			if err != nil {
				return err
			}
			return r.emit(c, renderResolved, res)
		},
	}
}

func renderResolved(w io.Writer, res gjson.Result) error {
	a := res.Get("approval")
	if !res.Get("applied").Bool() {
		_, err := fmt.Fprintf(w, "Approval %s was already settled: %s (%s).\n", a.Get("id").String(), a.Get("status").String(), a.Get("decision").String())
		return err
	}
	fmt.Fprintf(w, "Approval %s: %s.\n", a.Get("id").String(), a.Get("decision").String())
	if sid := a.Get("execution.sessionId").String(); sid != "" {
		fmt.Fprintf(w, "Running as session %s: openclaw process poll %s\n", sid, sid)
	} else if e := a.Get("execution.error").String(); e != "" {
		fmt.Fprintf(w, "It did not start: %s\n", e)
	}
	return nil
}

// approvalsInput reads the replacement file of `approvals set --file|--stdin`
// (JSON5, as the original), nil when neither is given.
func (r *runtime) approvalsInput(c *cli.Context) (*policy.ExecApprovals, error) {
	file, stdin := c.String("file"), c.Bool("stdin")
	if file == "" && !stdin {
		return nil, nil
	}
	if file != "" && stdin {
		return nil, tools.Errorf(tools.CodeUsage, "use either --file or --stdin, not both")
	}
	for _, f := range []string{"security", "ask", "ask-fallback", "defaults"} {
		if c.IsSet(f) {
			return nil, tools.Errorf(tools.CodeUsage, "--%s edits the file; --file/--stdin replace it: use one or the other", f)
		}
	}
	var src io.Reader = r.stdin
	if file != "" {
		f, err := os.Open(file)
		if err != nil {
			return nil, tools.Errorf(tools.CodeFailed, "approvals set: %v", err)
		}
		defer f.Close()
		src = f
	}
	const maxFile = 1 << 20 // the approvals file is small; refuse anything huge
	raw, err := io.ReadAll(io.LimitReader(src, maxFile+1))
	if err != nil {
		return nil, tools.Errorf(tools.CodeFailed, "approvals set: %v", err)
	}
	if len(raw) > maxFile {
		return nil, tools.Errorf(tools.CodeInvalidParams, "approvals set: the file is over %d bytes", maxFile)
	}
	v, err := config.ParseJSON5(raw)
	if err != nil {
		return nil, tools.Errorf(tools.CodeInvalidParams, "approvals set: failed to parse approvals JSON: %v", err)
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, tools.Errorf(tools.CodeInvalidParams, "approvals set: exec approvals JSON must be an object")
	}
	b, _ := json.Marshal(v)
	var doc policy.ExecApprovals
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, tools.Errorf(tools.CodeInvalidParams, "approvals set: %v", err)
	}
	return &doc, nil
}

// nodeFlag names a node host whose approvals file get and set read and
// write through the gateway (exec.approvals.node.get|set).
var nodeFlag = &cli.StringFlag{Name: "node", Usage: "a node host's file: its `ID`, display name or unique prefix (exec.approvals.node.get|set)"}

// setGatewayApprovals is `approvals set --gateway` (or --node): read the gateway's file
// and hash (exec.approvals.get), edit or replace it, and write it back with
// that hash (exec.approvals.set compares and sets), so a change someone made
// in between is refused rather than overwritten.
func (r *runtime) setGatewayApprovals(c *cli.Context, replace *policy.ExecApprovals, edit func(*policy.ExecApprovals)) error {
	admin := []string{protocol.ScopeAdmin}
	getM, setM, target := "exec.approvals.get", "exec.approvals.set", map[string]any{}
	if node := c.String("node"); node != "" { // a node host's file, through the gateway
		getM, setM, target = "exec.approvals.node.get", "exec.approvals.node.set", map[string]any{"nodeId": node}
	}
	cur, err := r.callScopes(c, getM, admin, mustJSON(target), 30*time.Second)
	if err != nil {
		return err
	}
	snap := gjson.ParseBytes(cur)
	hash := snap.Get("hash").String()
	if h := c.String("base-hash"); h != "" {
		hash = h
	}
	doc := replace
	if doc == nil {
		doc = &policy.ExecApprovals{}
		if f := snap.Get("file"); f.IsObject() {
			if err := json.Unmarshal([]byte(f.Raw), doc); err != nil {
				return tools.Errorf(tools.CodeFailed, "approvals set --gateway: the gateway's file: %v", err)
			}
		}
		edit(doc)
	}
	doc.Version = 1
	target["file"], target["baseHash"] = doc, hash
	params, err := json.Marshal(target)
	if err != nil {
		return err
	}
	res, err := r.callScopes(c, setM, admin, params, 30*time.Second)
	if err != nil {
		if strings.Contains(err.Error(), "baseHash") {
			return tools.Errorf(tools.CodeFailed, "the gateway's exec approvals changed since they were read (hash %s): run `openclaw approvals get --gateway` and try again", hash)
		}
		return err
	}
	return r.emit(c, nil, res)
}
