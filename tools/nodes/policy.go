package nodes

import (
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"golang.org/x/text/unicode/norm"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/protocol"
)

// The node command policy (the original's src/gateway/node-command-policy.ts,
// docs/nodes/command-policy.md): a command is usable only when the node
// declares it, its approved surface holds it, and the platform allowlist
// admits it (effective = declared ∩ approved ∩ allowlist).

// Command families.
var (
	systemRunCommands    = []string{"system.run.prepare", "system.run", "system.which"}
	execApprovalCommands = []string{"system.execApprovals.get", "system.execApprovals.set"}
	fileCommands         = []string{"fs.listDir", "terminal.upload"}
	browserProxyCommands = []string{"browser.proxy", "browser.proxy.upload.v1"}
	mcpCommand           = "mcp.tools.call.v1"
	claudeRunCommand     = "agent.cli.claude.run.v1"
	notifyCommand        = "system.notify"
	deviceAppsCommand    = "device.apps"
	desktopStreamCommand = "desktop.stream"

	// canvasCommands are the canvas tool's node commands (spec B.2). The
	// original adds them through its canvas plugin on macOS only; here a
	// desktop host (our headless node host shows the canvas in Chromium)
	// may declare them and an operator approves them like system.run.
	canvasCommands = []string{"canvas.present", "canvas.hide", "canvas.navigate", "canvas.eval",
		"canvas.snapshot", "canvas.a2ui.push", "canvas.a2ui.pushJSONL", "canvas.a2ui.reset"}

	cameraCommands       = []string{"camera.list"}
	macCameraCommands    = []string{"camera.ptz.status"}
	cameraDangerous      = []string{"camera.snap", "camera.clip", "camera.ptz.control"}
	screenCommands       = []string{"screen.snapshot"}
	screenDangerous      = []string{"screen.record"}
	computerCommands     = []string{"computer.act"}
	mobileUICommands     = []string{"mobile.ui.observe", "mobile.ui.act"}
	locationCommands     = []string{"location.get"}
	deviceCommands       = []string{"device.info", "device.status"}
	androidNotifications = []string{"notifications.list", "notifications.actions"}
	androidDevice        = []string{"device.permissions", "device.health", deviceAppsCommand}
	contactsCommands     = []string{"contacts.search"}
	calendarCommands     = []string{"calendar.events"}
	callLogCommands      = []string{"callLog.search"}
	remindersCommands    = []string{"reminders.list"}
	photosCommands       = []string{"photos.latest"}
	motionCommands       = []string{"motion.activity", "motion.pedometer"}
	talkPTTCommands      = []string{"talk.ptt.start", "talk.ptt.stop", "talk.ptt.cancel", "talk.ptt.once"}
	watchRelayCommands   = []string{"watch.status", "watch.notify"}
)

// policyTables are the derived command sets, built on first use (not in
// every process's init).
type policyTables struct {
	// dangerous need gateway.nodes.commands.allow even when declared and
	// approved.
	dangerous []string
	// desktopHost are admitted on desktop platforms only once an approved
	// surface declares them (never by the platform default alone).
	desktopHost      map[string]bool
	platformDefaults map[string][]string
	// adminInvoke need operator.admin on node.invoke (§4.5).
	adminInvoke map[string]bool
	nativeLabel []nativeRule
}

type nativeRule struct {
	re, families *regexp.Regexp
	id           string
}

var tables = sync.OnceValue(func() *policyTables {
	system := cat(systemRunCommands, execApprovalCommands, fileCommands, []string{notifyCommand},
		browserProxyCommands, []string{mcpCommand, claudeRunCommand})
	return &policyTables{
		dangerous: cat(cameraDangerous, screenDangerous,
			[]string{"contacts.add", "calendar.add", "reminders.add", "sms.send", "sms.search", "health.summary"}),
		desktopHost: set(cat(systemRunCommands, execApprovalCommands, fileCommands, browserProxyCommands,
			[]string{mcpCommand, claudeRunCommand}, screenCommands, []string{desktopStreamCommand}, canvasCommands)),
		platformDefaults: map[string][]string{
			"ios": cat(cameraCommands, locationCommands, deviceCommands, contactsCommands, calendarCommands,
				remindersCommands, photosCommands, motionCommands, []string{notifyCommand}, canvasCommands),
			"watchos": cat(deviceCommands, []string{notifyCommand}),
			"android": cat(cameraCommands, locationCommands, androidNotifications, []string{notifyCommand}, deviceCommands,
				androidDevice, contactsCommands, calendarCommands, callLogCommands, remindersCommands, photosCommands,
				motionCommands, mobileUICommands, canvasCommands),
			"macos": cat(cameraCommands, macCameraCommands, locationCommands, deviceCommands, []string{deviceAppsCommand},
				contactsCommands, calendarCommands, remindersCommands, photosCommands, motionCommands, system,
				screenCommands, []string{desktopStreamCommand}, computerCommands, canvasCommands),
			"linux":   cat(system, screenCommands, []string{desktopStreamCommand}, computerCommands, canvasCommands),
			"windows": cat(cameraCommands, locationCommands, deviceCommands, system, screenCommands, []string{desktopStreamCommand}, computerCommands, canvasCommands),
			"unknown": cat(cameraCommands, locationCommands, []string{notifyCommand}),
		},
		adminInvoke: set(cat(browserProxyCommands, fileCommands)),
		nativeLabel: []nativeRule{
			{regexp.MustCompile(`^(?:ios|ipados) \d+(?:\.\d+){0,2}$`), regexp.MustCompile(`^(?:iphone|ipad|ios)$`), "ios"},
			{regexp.MustCompile(`^watchos \d+(?:\.\d+){0,2}$`), regexp.MustCompile(`^(?:apple watch|watchos)$`), "watchos"},
			{regexp.MustCompile(`^macos \d+(?:\.\d+){0,2}$`), regexp.MustCompile(`^mac$`), "macos"},
			{regexp.MustCompile(`^android \d+(?: \(sdk \d+\))?$`), regexp.MustCompile(`^android$`), "android"},
		},
	}
})

// isPrivateCommand: the node's private worker controls are never an
// operator's to invoke, approve or see.
func isPrivateCommand(cmd string) bool {
	return strings.HasPrefix(cmd, "worker.") && strings.HasSuffix(cmd, ".v1")
}

// adminApprovalCommand: approving a surface with one of these needs
// operator.admin besides operator.pairing.
func adminApprovalCommand(cmd string) bool {
	return tables().adminInvoke[cmd] || slices.Contains(systemRunCommands, cmd) || slices.Contains(execApprovalCommands, cmd)
}

// approveScopes are the least operator scopes that may approve a surface
// with these commands (node-pairing-authz.ts).
func approveScopes(commands []string) []string {
	for _, c := range commands {
		if adminApprovalCommand(c) {
			return []string{protocol.ScopePairing, protocol.ScopeAdmin}
		}
	}
	if len(commands) > 0 {
		return []string{protocol.ScopePairing, protocol.ScopeWrite}
	}
	return []string{protocol.ScopePairing}
}

// foldMeta lower-cases and strips diacritics, as the original's
// normalizeDeviceMetadataForPolicy.
func foldMeta(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	var b strings.Builder
	for _, r := range norm.NFKD.String(s) {
		if r >= 0x300 && r <= 0x36f { // combining marks
			continue
		}
		b.WriteRune(r)
	}
	return strings.ToLower(b.String())
}

// platformID classifies a node by its reported platform and device
// family (linux, macos, windows, ios, watchos, android or unknown).
func platformID(platform, deviceFamily string) string {
	raw, fam := foldMeta(platform), foldMeta(deviceFamily)
	switch raw {
	case "ios":
		if fam == "" || fam == "iphone" || fam == "ipad" || fam == "ios" {
			return "ios"
		}
		return "unknown"
	case "watchos":
		if fam == "apple watch" || fam == "watchos" {
			return "watchos"
		}
		return "unknown"
	case "android":
		if fam == "" || fam == "android" {
			return "android"
		}
		return "unknown"
	case "macos", "windows", "linux":
		want := map[string]string{"macos": "mac", "windows": "windows", "linux": "linux"}[raw]
		if fam == want {
			return raw
		}
		return "unknown"
	}
	for _, n := range tables().nativeLabel {
		if n.re.MatchString(raw) {
			if n.families.MatchString(fam) {
				return n.id
			}
			return "unknown"
		}
	}
	if raw != "" {
		return "unknown"
	}
	for _, r := range []struct{ id, tokens string }{{"ios", "iphone|ipad|ios"}, {"watchos", "apple watch|watchos"},
		{"android", "android"}, {"macos", "mac"}, {"windows", "windows"}, {"linux", "linux"}} {
		for _, t := range strings.Split(r.tokens, "|") {
			if strings.Contains(fam, t) {
				return r.id
			}
		}
	}
	return "unknown"
}

func isDesktop(id string) bool { return id == "macos" || id == "windows" || id == "linux" }

// nodeFacts are what the allowlist depends on.
type nodeFacts struct {
	platform, deviceFamily string
	caps, commands         []string
	// approved is the approved surface's commands (desktop host commands
	// enter the allowlist through it).
	approved []string
}

// allowlistOpts select the pairing view (what may be approved) or the
// runtime view (what may run).
type allowlistOpts struct {
	desktopHost bool // admit desktop host commands as if approved
	dangerous   bool // admit the dangerous defaults (approval lists them)
}

// configCommands reads gateway.nodes.commands.allow/deny (current names)
// and gateway.nodes.allowCommands/denyCommands (classic names).
func configCommands(cfg *config.Config) (allow, deny []string) {
	read := func(path string) []string {
		var out []string
		if cfg != nil {
			_ = cfg.Decode(path, &out)
		}
		return out
	}
	allow = append(read("gateway.nodes.commands.allow"), read("gateway.nodes.allowCommands")...)
	deny = append(read("gateway.nodes.commands.deny"), read("gateway.nodes.denyCommands")...)
	return allow, deny
}

// allowlist is the set of commands the gateway admits for a node.
func allowlist(cfg *config.Config, n nodeFacts, o allowlistOpts) map[string]bool {
	id := platformID(n.platform, n.deviceFamily)
	base := tables().platformDefaults[id]
	if isDesktop(id) && !o.desktopHost {
		kept := base[:0:0]
		for _, c := range base {
			if !tables().desktopHost[c] {
				kept = append(kept, c)
			}
		}
		base = kept
	}
	var extra []string
	if id == "ios" && foldMeta(n.deviceFamily) == "iphone" {
		extra = append(extra, watchRelayCommands...)
	}
	talk := slices.ContainsFunc(n.caps, func(c string) bool { return strings.EqualFold(c, "talk") }) ||
		slices.ContainsFunc(n.commands, func(c string) bool { return strings.HasPrefix(strings.ToLower(c), "talk.") })
	if talk {
		extra = append(extra, talkPTTCommands...)
	}
	if isDesktop(id) {
		for _, c := range n.approved {
			if tables().desktopHost[strings.TrimSpace(c)] {
				extra = append(extra, strings.TrimSpace(c))
			}
		}
	}
	cfgAllow, cfgDeny := configCommands(cfg)
	dangerous := set(tables().dangerous)
	out := map[string]bool{}
	for _, c := range cat(base, extra, cfgAllow) {
		if c = strings.TrimSpace(c); c != "" && (o.dangerous || !dangerous[c]) {
			out[c] = true
		}
	}
	for _, c := range cfgAllow {
		if c = strings.TrimSpace(c); c != "" {
			out[c] = true
		}
	}
	for _, c := range cfgDeny {
		if c = strings.TrimSpace(c); c != "" && !(o.dangerous && dangerous[c]) {
			delete(out, c)
		}
	}
	for c := range out {
		if isPrivateCommand(c) {
			delete(out, c)
		}
	}
	return out
}

// normList trims, drops empties and duplicates, and sorts.
func normList(in []string) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, s := range in {
		if s = strings.TrimSpace(s); s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

// publicCommands drops private commands.
func publicCommands(in []string) []string {
	out := []string{}
	for _, c := range in {
		if !isPrivateCommand(c) {
			out = append(out, c)
		}
	}
	return out
}

// intersect keeps the members of a that b holds, in a's order.
func intersect(a []string, b map[string]bool) []string {
	out := []string{}
	for _, x := range a {
		if b[x] {
			out = append(out, x)
		}
	}
	return out
}

// subset reports whether every member of a is in b.
func subset(a, b []string) bool {
	bs := set(b)
	for _, x := range a {
		if !bs[x] {
			return false
		}
	}
	return true
}

// permsExpand reports a declared permission granted (true) that the
// approved map does not grant.
func permsExpand(declared, approved map[string]bool) bool {
	for k, v := range declared {
		if v && !approved[k] {
			return true
		}
	}
	return false
}

// commandRejection is the original's hint for a refused command
// (node-command-rejection-hint.ts).
func commandRejection(reason, command, platform string, declared []string, cfg *config.Config) string {
	if platform == "" {
		platform = "unknown"
	}
	switch reason {
	case "command not declared by node":
		return `node command not allowed: the node (platform: ` + platform + `) does not support "` + command + `"`
	case "command not allowlisted":
		if strings.HasPrefix(command, "talk.") {
			return `node command not allowed: "` + command + `" requires a trusted Talk-capable node`
		}
		_, deny := configCommands(cfg)
		if slices.ContainsFunc(deny, func(d string) bool { return strings.TrimSpace(d) == command }) {
			return `node command not allowed: "` + command + `" is blocked by gateway.nodes.commands.deny`
		}
		if slices.Contains(tables().dangerous, command) {
			return `node command not allowed: "` + command + `" requires explicit gateway.nodes.commands.allow opt-in`
		}
		return `node command not allowed: "` + command + `" is not in the allowlist for platform "` + platform + `"`
	case "node did not declare commands":
		if slices.Contains(declared, command) {
			return "node command not allowed: the node's declared command surface is pending approval; run `openclaw nodes pending`, then `openclaw nodes approve <requestId>`"
		}
		return "node command not allowed: the node did not declare any supported commands"
	}
	return "node command not allowed: " + reason
}

func cat(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

func set(list []string) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, s := range list {
		m[s] = true
	}
	return m
}
