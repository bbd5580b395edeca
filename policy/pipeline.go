package policy

import (
	"slices"
	"strings"
)

// ToolPolicy mirrors the policy keys of the config sections `tools` and
// `agents.list[].tools`. ByProvider entries use Profile/Allow/AlsoAllow/Deny
// only (their own ByProvider is ignored).
type ToolPolicy struct {
	Profile    string                `json:"profile,omitempty"`
	Allow      []string              `json:"allow,omitempty"`
	AlsoAllow  []string              `json:"alsoAllow,omitempty"`
	Deny       []string              `json:"deny,omitempty"`
	ByProvider map[string]ToolPolicy `json:"byProvider,omitempty"`
	// LoopDetection is tools.loopDetection (global or per agent); it rides
	// on the policy section so it is decoded once per config load.
	LoopDetection *LoopConfig `json:"loopDetection,omitempty"`
}

// policy returns the allow/deny layer of the section (§5.5 steps 3-6).
func (t *ToolPolicy) policy() *Policy {
	if t == nil {
		return nil
	}
	return &Policy{Allow: t.Allow, AlsoAllow: t.AlsoAllow, Deny: t.Deny}
}

// SubagentInput describes a sub-agent session (§5.10).
type SubagentInput struct {
	Depth         int    // spawn depth of this session; 0 = unknown, treated as 1
	MaxSpawnDepth int    // agents.defaults.subagents.maxSpawnDepth; 0 -> 1
	Tools         Policy // tools.subagents.tools
}

// Input is everything Resolve needs; the caller reads config and session
// state, this package only decides.
type Input struct {
	Tools       []string          // tool names present in this run (core + plugin)
	PluginTools map[string]string // plugin tool name -> plugin id (may be nil)
	Global      ToolPolicy        // config `tools`
	AgentID     string
	Agent       *ToolPolicy // agents.list[i].tools for AgentID, nil if none
	Provider    string      // model provider, for byProvider lookup
	Model       string      // model id, for byProvider lookup
	Group       *Policy     // group/channel policy, nil if none
	Sandbox     *Policy     // effective sandbox tool policy when sandboxed, nil otherwise
	Subagent    *SubagentInput
	// Unavailable are tools this run does not have at all (§5.5 step 11,
	// runtime availability such as apply_patch's model gate), each with
	// the step to report; they are removed after every policy layer.
	Unavailable []Removal
}

// Removal records which pipeline step first removed a tool. Step is the
// step's label with a trailing ".allow" swapped for ".deny" when the deny
// list (not a missing allow entry) removed it.
type Removal struct {
	Tool string `json:"tool"`
	Step string `json:"step"`
}

// Result is the outcome of Resolve. Allowed keeps the run's order and
// spelling; Warnings are not deduplicated across runs (see Warner).
type Result struct {
	Allowed  []string  `json:"allowed"`
	Removed  []Removal `json:"removed"`
	Warnings []string  `json:"warnings,omitempty"`
}

// Allows reports whether tool (normalised, so "Bash" finds "exec") survived.
func (r Result) Allows(tool string) bool {
	n := Normalize(tool)
	if n == "" {
		return false
	}
	for _, a := range r.Allowed {
		if Normalize(a) == n {
			return true
		}
	}
	return false
}

// step is one pipeline layer. strip marks allow-lists checked by the
// Classic plugin-only rule; profile steps are checked (for warnings) but
// never dropped, and their own entries are not reported as unavailable.
type step struct {
	label    string
	policy   *Policy
	strip    bool
	profile  bool
	suppress []string // normalised built-in profile entries
}

// Resolve runs the Classic tool-policy pipeline (§5.5 steps 1-7, 9, 10) over
// in.Tools. Each layer can only remove; a tool removed by one layer is never
// looked at again, so Removed names the first layer responsible.
//
// Steps 1-7 drop a user allow-list that names no core tool of this run
// (only plugin tools or unknown names) and warn instead: in Classic such a
// list would otherwise silently switch off every core tool. Built-in profile
// allow-lists are never dropped: a profile is a deliberate restriction and
// must fail closed.
func Resolve(in Input) Result {
	tools, names := presentTools(in.Tools)
	plugins := newPluginIndex(names, in.PluginTools)
	core := map[string]bool{}
	for _, n := range names {
		if !plugins.owns(n) {
			core[n] = true
		}
	}

	res := Result{Allowed: []string{}, Removed: []Removal{}}
	alive := make([]bool, len(tools))
	for i := range alive {
		alive[i] = true
	}
	for _, st := range buildSteps(in) {
		eff, ok := st.policy.effective()
		if !ok {
			continue
		}
		if st.strip {
			var warning string
			eff, warning = stripAllowlist(st, eff, names, core, plugins)
			if warning != "" {
				res.Warnings = append(res.Warnings, warning)
			}
		}
		m := compilePolicy(eff, plugins)
		for i, n := range names {
			if !alive[i] {
				continue
			}
			switch {
			case m.denies(n):
				res.Removed = append(res.Removed, Removal{Tool: tools[i], Step: denyLabel(st.label)})
			case !m.allows(n):
				res.Removed = append(res.Removed, Removal{Tool: tools[i], Step: st.label})
			default:
				continue
			}
			alive[i] = false
		}
	}
	for _, u := range in.Unavailable {
		n := Normalize(u.Tool)
		for i := range names {
			if alive[i] && names[i] == n {
				res.Removed = append(res.Removed, Removal{Tool: tools[i], Step: u.Step})
				alive[i] = false
			}
		}
	}
	for i, t := range tools {
		if alive[i] {
			res.Allowed = append(res.Allowed, t)
		}
	}
	return res
}

// presentTools drops empty names and later duplicates (by normalised name),
// returning the kept spellings and their normalised names.
func presentTools(list []string) (tools, names []string) {
	seen := make(map[string]bool, len(list))
	for _, t := range list {
		n := Normalize(t)
		if n == "" || seen[n] {
			continue
		}
		seen[n] = true
		tools = append(tools, t)
		names = append(names, n)
	}
	return tools, names
}

// buildSteps lays out §5.5 in order. Nil policies are skipped by Resolve.
func buildSteps(in Input) []step {
	global := &in.Global
	agent := in.Agent
	if agent == nil {
		agent = &ToolPolicy{}
	}
	provider := lookupProvider(global.ByProvider, in.Provider, in.Model)
	agentProvider := lookupProvider(agent.ByProvider, in.Provider, in.Model)

	// Step 1: agent profile overrides global; the agent's alsoAllow, when
	// set at all, replaces the global one at this stage.
	profile := firstNonEmpty(agent.Profile, global.Profile)
	profileAlso := global.AlsoAllow
	if in.Agent != nil && in.Agent.AlsoAllow != nil {
		profileAlso = in.Agent.AlsoAllow
	}
	// Step 2: same for the provider-specific profile.
	var providerProfile string
	var providerAlso []string
	if provider != nil {
		providerProfile, providerAlso = provider.Profile, provider.AlsoAllow
	}
	if agentProvider != nil {
		providerProfile = firstNonEmpty(agentProvider.Profile, providerProfile)
		if agentProvider.AlsoAllow != nil {
			providerAlso = agentProvider.AlsoAllow
		}
	}

	agentLabel := "agent tools"
	if id := strings.TrimSpace(in.AgentID); id != "" {
		agentLabel = "agents." + id + ".tools"
	}
	steps := []step{
		profileStep("tools.profile", profile, profileAlso),
		profileStep("tools.byProvider.profile", providerProfile, providerAlso),
		{label: "tools.allow", policy: global.policy(), strip: true},
		{label: "tools.byProvider.allow", policy: provider.policy(), strip: true},
		{label: agentLabel + ".allow", policy: in.Agent.policy(), strip: true},
		{label: agentLabel + ".byProvider.allow", policy: agentProvider.policy(), strip: true},
		{label: "group tools.allow", policy: in.Group, strip: true},
		{label: "sandbox tools.allow", policy: in.Sandbox},
	}
	if in.Subagent != nil {
		sp := SubagentPolicy(*in.Subagent)
		steps = append(steps, step{label: "subagent tools.allow", policy: &sp})
	}
	return steps
}

// profileStep builds step 1 or 2: the profile's allow-list with alsoAllow
// unioned in. alsoAllow alone (no restricting profile) does nothing here;
// steps 3-6 carry it again.
func profileStep(base, name string, also []string) step {
	name = strings.TrimSpace(name)
	st := step{label: base, strip: true, profile: true}
	if name != "" {
		st.label = base + " (" + name + ")"
	}
	p := ResolveProfile(name)
	if p == nil {
		return st
	}
	// Both the entries and their members: "apply_patch" is as much the
	// coding profile's as "group:fs" is.
	for _, e := range p.Allow {
		st.suppress = append(st.suppress, Normalize(e))
	}
	st.suppress = append(st.suppress, ExpandGroups(p.Allow)...)
	if len(p.Allow) > 0 && len(also) > 0 {
		p.Allow = dedupe(append(p.Allow, also...))
	}
	st.policy = p
	return st
}

// lookupProvider finds the byProvider entry for a model: keys are compared
// trimmed and lower-cased, "<provider>/<model>" (or the model id itself when
// it already contains a slash) first, then "<provider>". When two keys
// normalise alike, the lexically smallest raw key wins, for determinism.
func lookupProvider(by map[string]ToolPolicy, provider, model string) *ToolPolicy {
	prov := strings.ToLower(strings.TrimSpace(provider))
	if prov == "" || len(by) == 0 {
		return nil
	}
	keys := make([]string, 0, len(by))
	for k := range by {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	lookup := make(map[string]string, len(keys))
	for _, k := range keys {
		nk := strings.ToLower(strings.TrimSpace(k))
		if _, dup := lookup[nk]; nk != "" && !dup {
			lookup[nk] = k
		}
	}
	var candidates []string
	if m := strings.ToLower(strings.TrimSpace(model)); m != "" {
		if !strings.Contains(m, "/") {
			m = prov + "/" + m
		}
		candidates = append(candidates, m)
	}
	candidates = append(candidates, prov)
	for _, c := range candidates {
		if k, ok := lookup[c]; ok {
			tp := by[k]
			return &tp
		}
	}
	return nil
}

// stripAllowlist applies the Classic plugin-only rule (§5.7) to one step's
// effective policy and returns the policy to use plus at most one warning.
func stripAllowlist(st step, eff Policy, names []string, core map[string]bool, plugins *pluginIndex) (Policy, string) {
	var unknown, pluginEntries []string
	hasCore, nonEmpty := false, false
	for _, raw := range eff.Allow {
		e := Normalize(raw)
		if e == "" {
			continue
		}
		nonEmpty = true
		if e == "*" {
			hasCore = true
			continue
		}
		isCore := entryHitsCore(e, names, core)
		isPlugin := plugins.isEntry(e)
		switch {
		case isCore:
			hasCore = true
		case isPlugin:
			pluginEntries = append(pluginEntries, e)
		default:
			unknown = append(unknown, e)
		}
	}
	if !nonEmpty {
		return eff, ""
	}
	// A profile's own entries missing from this run are expected (the
	// runtime or model may not offer them), so they are not reported.
	unknown = slices.DeleteFunc(dedupe(unknown), func(e string) bool { return slices.Contains(st.suppress, e) })
	stripped := !hasCore && !st.profile
	if stripped {
		eff.Allow = nil
	}
	switch {
	case len(unknown) > 0:
		return eff, unknownWarning(st.label, unknown, stripped)
	case stripped && len(pluginEntries) > 0:
		return eff, pluginOnlyWarning(st.label, dedupe(pluginEntries))
	}
	return eff, ""
}

// entryHitsCore reports whether a normalised allow entry admits a core tool
// present in the run. Globs count too (upstream only checked exact names
// and groups, so `web_*` alone was wrongly treated as unknown and dropped).
func entryHitsCore(e string, names []string, core map[string]bool) bool {
	if strings.Contains(e, "*") {
		parts := strings.Split(e, "*")
		return slices.ContainsFunc(names, func(n string) bool { return core[n] && globMatch(parts, n) })
	}
	for _, t := range ExpandGroups([]string{e}) {
		if core[t] {
			return true
		}
	}
	return false
}

// denyLabel turns "x.allow" into "x.deny" for removals caused by a deny list.
func denyLabel(label string) string {
	if base, ok := strings.CutSuffix(label, ".allow"); ok {
		return base + ".deny"
	}
	return label
}

func firstNonEmpty(a, b string) string {
	if strings.TrimSpace(a) != "" {
		return a
	}
	return b
}
