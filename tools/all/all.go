// Package all links every tool family into the registry. The binary, the
// gateway's tests and any future entry point (MCP, node host, agent loop)
// import it, so they all serve the same set of actions. The gateway's own
// methods (health, status, config.*, logs.*, device.*, tasks.*, tools.*)
// register with package gateway, which
// every serving entry point imports anyway.
package all

import (
	_ "github.com/openclaw-go/openclaw/tools/agentrun"
	_ "github.com/openclaw-go/openclaw/tools/agents"
	_ "github.com/openclaw-go/openclaw/tools/browser"
	_ "github.com/openclaw-go/openclaw/tools/canvas"
	_ "github.com/openclaw-go/openclaw/tools/channels"
	_ "github.com/openclaw-go/openclaw/tools/cron"
	_ "github.com/openclaw-go/openclaw/tools/exec"
	_ "github.com/openclaw-go/openclaw/tools/fs"
	_ "github.com/openclaw-go/openclaw/tools/gatewaytool"
	_ "github.com/openclaw-go/openclaw/tools/heartbeat"
	_ "github.com/openclaw-go/openclaw/tools/image"
	_ "github.com/openclaw-go/openclaw/tools/mcpservers"
	_ "github.com/openclaw-go/openclaw/tools/memory"
	_ "github.com/openclaw-go/openclaw/tools/message"
	_ "github.com/openclaw-go/openclaw/tools/nodes"
	_ "github.com/openclaw-go/openclaw/tools/patch"
	_ "github.com/openclaw-go/openclaw/tools/pdf"
	_ "github.com/openclaw-go/openclaw/tools/sandbox"
	_ "github.com/openclaw-go/openclaw/tools/sessions"
	_ "github.com/openclaw-go/openclaw/tools/web"
)
