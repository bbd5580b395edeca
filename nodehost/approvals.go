package nodehost

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/openclaw-go/openclaw/approvalsfile"
	"github.com/openclaw-go/openclaw/policy"
	"github.com/openclaw-go/openclaw/tools"
)

// The node's exec approvals live in its own state dir
// (exec-approvals.json, the file `openclaw approvals` edits on this
// machine), so a gateway's operators read and change them through
// system.execApprovals.get|set (exec.approvals.node.get|set there).

// runApprovalsGet reads the file through the exec family's
// exec.approvals.get, run here on this node's state dir.
func (h *Host) runApprovalsGet(ctx context.Context, env *tools.Env, raw json.RawMessage) (any, error) {
	var p struct {
		IncludeResolvedDefaults bool `json:"includeResolvedDefaults"`
	}
	_ = json.Unmarshal(raw, &p)
	out, err := tools.Invoke(ctx, env, tools.Call{Method: "exec.approvals.get", Args: json.RawMessage(`{}`)})
	if err != nil {
		return nil, err
	}
	if !p.IncludeResolvedDefaults {
		return out, nil
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		return nil, err
	}
	doc, err := approvalsfile.Load(approvalsfile.Path(env.StateDir))
	if err != nil {
		return nil, err
	}
	snap := policySnapshotOf(doc, "")
	m["resolvedDefaults"] = map[string]any{"security": snap.Security, "ask": snap.Ask, "askFallback": snap.AskFallback,
		"autoAllowSkills": snap.AutoAllowSkills}
	return m, nil
}

type approvalsSetParams struct {
	File     json.RawMessage `json:"file"`
	BaseHash *string         `json:"baseHash"`
}

// runApprovalsSet replaces the file under the approvals writers' lock,
// with the original's compare-and-set rules: an existing file needs the
// hash it was read with; a missing one accepts no hash or its own.
func (h *Host) runApprovalsSet(ctx context.Context, env *tools.Env, p approvalsSetParams) (any, error) {
	doc := policy.NewExecApprovals()
	if err := json.Unmarshal(p.File, doc); err != nil {
		return nil, nodeErrorf("INVALID_REQUEST", "INVALID_REQUEST: exec approvals file: %v", err)
	}
	doc.Normalize()
	if err := validateApprovals(doc); err != nil {
		return nil, err
	}
	doc.Version = 1
	base := ""
	if p.BaseHash != nil {
		base = *p.BaseHash
	}
	path := approvalsfile.Path(env.StateDir)
	snap, err := approvalsfile.Update(ctx, path, func(cur *approvalsfile.Snapshot) error {
		switch {
		case !cur.Exists && base != "" && base != cur.Hash:
			return nodeErrorf("INVALID_REQUEST", "INVALID_REQUEST: exec approvals changed; reload and retry")
		case cur.Exists && base == "":
			return nodeErrorf("INVALID_REQUEST", "INVALID_REQUEST: exec approvals base hash required; reload and retry")
		case cur.Exists && base != cur.Hash:
			return nodeErrorf("INVALID_REQUEST", "INVALID_REQUEST: exec approvals changed; reload and retry")
		}
		if len(doc.Socket) == 0 {
			doc.Socket = cur.Doc.Socket
		}
		cur.Doc = doc
		return nil
	})
	if err != nil {
		return nil, err
	}
	return map[string]any{"path": path, "exists": snap.Exists, "hash": snap.Hash, "file": snap.Doc}, nil
}

// validateApprovals refuses values the policy does not know (fails
// closed: a file every run would then refuse to read is never stored).
func validateApprovals(d *policy.ExecApprovals) error {
	check := func(a *policy.ExecApprovalAgent) error {
		if a == nil {
			return nil
		}
		for _, v := range []string{a.Security, a.AskFallback} {
			if v != "" && policy.TightestSecurity(v) == "" {
				return nodeErrorf("INVALID_REQUEST", "INVALID_REQUEST: security must be deny, allowlist or full, got %q", v)
			}
		}
		if a.Ask != "" && policy.StrictestAsk(a.Ask) == "" {
			return nodeErrorf("INVALID_REQUEST", "INVALID_REQUEST: ask must be off, on-miss or always, got %q", a.Ask)
		}
		for _, e := range a.Allowlist {
			if e.Pattern == "" {
				return nodeErrorf("INVALID_REQUEST", "INVALID_REQUEST: allowlist entries need a pattern")
			}
		}
		return nil
	}
	if err := check(&d.Defaults); err != nil {
		return err
	}
	for _, a := range d.Agents {
		if err := check(a); err != nil {
			return err
		}
	}
	return nil
}

// policySnapshot is what an approval is bound to (the original's
// createExecApprovalPolicySnapshot): the agent's resolved file policy and
// allowlist rules. A run approved under one snapshot is refused when the
// node's policy changed since.
type policySnapshot struct {
	Security        string       `json:"security"`
	Ask             string       `json:"ask"`
	AskFallback     string       `json:"askFallback"`
	AutoAllowSkills bool         `json:"autoAllowSkills"`
	AllowlistRules  []policyRule `json:"allowlistRules"`
}

type policyRule struct {
	Pattern    string `json:"pattern"`
	ArgPattern string `json:"argPattern,omitempty"`
	Source     string `json:"source,omitempty"`
}

func policySnapshotOf(doc *policy.ExecApprovals, agent string) policySnapshot {
	if agent == "" {
		agent = "main"
	}
	r := doc.Resolve(agent)
	sec, ask, allow := r.Security, r.Ask, r.Allowlist
	s := policySnapshot{Security: sec, Ask: ask, AskFallback: r.AskFallback, AllowlistRules: []policyRule{}}
	if s.Security == "" {
		s.Security = "full"
	}
	if s.Ask == "" {
		s.Ask = "off"
	}
	auto := r.AutoAllowSkills
	if s.AskFallback == "" {
		s.AskFallback = "deny"
	}
	s.AutoAllowSkills = auto != nil && *auto
	seen := map[policyRule]bool{}
	for _, e := range allow {
		r := policyRule{Pattern: e.Pattern, ArgPattern: e.ArgPattern}
		if e.Source == "allow-always" {
			r.Source = e.Source
		}
		if !seen[r] {
			seen[r] = true
			s.AllowlistRules = append(s.AllowlistRules, r)
		}
	}
	sort.Slice(s.AllowlistRules, func(i, j int) bool {
		a, b := s.AllowlistRules[i], s.AllowlistRules[j]
		if a.Pattern != b.Pattern {
			return a.Pattern < b.Pattern
		}
		if a.ArgPattern != b.ArgPattern {
			return a.ArgPattern < b.ArgPattern
		}
		return a.Source < b.Source
	})
	return s
}

// current reports whether the node's policy is still the one an approval
// was given under: same modes, and every rule then still there.
func (s policySnapshot) current(now policySnapshot) bool {
	if s.Security != now.Security || s.Ask != now.Ask || s.AskFallback != now.AskFallback || s.AutoAllowSkills != now.AutoAllowSkills {
		return false
	}
	have := map[policyRule]bool{}
	for _, r := range now.AllowlistRules {
		have[r] = true
	}
	for _, r := range s.AllowlistRules {
		if !have[r] {
			return false
		}
	}
	return true
}

// effectivePolicy is the node's exec policy for an agent: the tightest
// security and strictest ask of this machine's config (tools.exec.*) and
// its approvals file, as the exec family decides.
func (h *Host) effectivePolicy(doc *policy.ExecApprovals, agent string) (sec, ask string) {
	if agent == "" {
		agent = "main"
	}
	fileSec, fileAsk, _ := doc.Effective(agent)
	sec = policy.TightestSecurity(h.cfg.String("tools.exec.security", "full"), fileSec)
	ask = policy.StrictestAsk(h.cfg.String("tools.exec.ask", "off"), fileAsk)
	if sec == "" {
		sec = "full"
	}
	if ask == "" {
		ask = "off"
	}
	return sec, ask
}
