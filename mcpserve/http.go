package mcpserve

import (
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxHTTPBody caps one POST /mcp request.
const MaxHTTPBody = 4 << 20

// HTTPHandler serves MCP as stateless streamable HTTP (every revision's
// clients: 2026-07-28 needs stateless, legacy ones work on it too). Each
// request gets a server built from the current config (build), so a reload
// applies to the next request. Authentication is the mounting server's.
// A browser request from a foreign origin is refused (403; net/http's
// CrossOriginProtection: Sec-Fetch-Site, else Origin against Host), as is
// a non-loopback Host on a loopback listener (the SDK's DNS-rebinding
// check); requests without an Origin (CLI clients) pass.
func HTTPHandler(build func(*http.Request) (*Server, error)) http.Handler {
	return mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		s, err := build(r)
		if err != nil {
			return nil // the SDK answers 400
		}
		return s.MCP()
	}, &mcp.StreamableHTTPOptions{
		Stateless: true, JSONResponse: false, MaxRequestBodyBytes: MaxHTTPBody,
		CrossOriginProtection: http.NewCrossOriginProtection(),
	})
}
