package mcpclient

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ProbeServer is what one live connection showed (the original's
// `mcp probe --json` server entry).
type ProbeServer struct {
	Launch                    string       `json:"launch"`
	Tools                     int          `json:"tools"`
	RequestTimeoutMs          int64        `json:"requestTimeoutMs,omitempty"`
	SupportsParallelToolCalls bool         `json:"supportsParallelToolCalls,omitempty"`
	FilteredTools             int          `json:"filteredTools,omitempty"`
	Resources                 bool         `json:"resources,omitempty"`
	Prompts                   bool         `json:"prompts,omitempty"`
	ListChanged               *ListChanged `json:"listChanged,omitempty"`
	ServerInfo                *ServerInfo  `json:"serverInfo,omitempty"`
}

// ListChanged says which lists the server announces changes of.
type ListChanged struct {
	Tools     bool `json:"tools"`
	Resources bool `json:"resources"`
	Prompts   bool `json:"prompts"`
}

// ServerInfo is the server's self-description and negotiated protocol.
type ServerInfo struct {
	Name            string `json:"name,omitempty"`
	Version         string `json:"version,omitempty"`
	ProtocolVersion string `json:"protocolVersion,omitempty"`
}

// Diagnostic is a server that could not be probed.
type Diagnostic struct {
	ServerName string `json:"serverName"`
	Message    string `json:"message"`
}

// ProbeResult is the original's `mcp probe --json` shape: servers that
// connected, the projected tool names, and diagnostics for the others.
type ProbeResult struct {
	GeneratedAt string                 `json:"generatedAt"`
	Servers     map[string]ProbeServer `json:"servers"`
	Tools       []string               `json:"tools"`
	Diagnostics []Diagnostic           `json:"diagnostics"`
	// Listed are the exposed tools per server (for `mcp tools <name>`).
	Listed map[string][]*mcp.Tool `json:"-"`
}

// probeConcurrency bounds the servers probed at once.
const probeConcurrency = 4

// Probe connects to each enabled server (at most four at a time), lists
// its tools and capabilities, and disconnects. Failures become
// diagnostics; Probe itself only fails by ctx.
func Probe(ctx context.Context, servers []Server, o Options) *ProbeResult {
	res := &ProbeResult{Servers: map[string]ProbeServer{}, Tools: []string{}, Diagnostics: []Diagnostic{},
		Listed: map[string][]*mcp.Tool{}}
	var mu sync.Mutex
	sem := make(chan struct{}, probeConcurrency)
	var wg sync.WaitGroup
	all := map[string][]*mcp.Tool{}
	byName := map[string]Server{}
	for _, s := range servers {
		if !s.Enabled {
			continue
		}
		byName[s.Name] = s
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
				defer func() { <-sem }()
			case <-ctx.Done():
				mu.Lock()
				res.Diagnostics = append(res.Diagnostics, Diagnostic{s.Name, ctx.Err().Error()})
				mu.Unlock()
				return
			}
			entry, tools, err := probeOne(ctx, s, o)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				res.Diagnostics = append(res.Diagnostics, Diagnostic{s.Name, oneLine(err.Error())})
				return
			}
			res.Servers[s.Name] = entry
			all[s.Name] = tools
		}()
	}
	wg.Wait()
	var names []string
	for n := range all {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, t := range Project(names, func(n string) (Server, []*mcp.Tool) { return byName[n], all[n] }) {
		res.Tools = append(res.Tools, t.Name)
		res.Listed[t.Server] = append(res.Listed[t.Server], t.MCP)
	}
	for n, s := range res.Servers {
		s.Tools = len(res.Listed[n])
		s.FilteredTools = len(all[n]) - s.Tools
		res.Servers[n] = s
	}
	sort.Slice(res.Diagnostics, func(i, j int) bool { return res.Diagnostics[i].ServerName < res.Diagnostics[j].ServerName })
	res.GeneratedAt = time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
	return res
}

func probeOne(ctx context.Context, s Server, o Options) (ProbeServer, []*mcp.Tool, error) {
	sess, err := Open(ctx, s, o)
	if err != nil {
		return ProbeServer{}, nil, err
	}
	defer sess.Close()
	lctx, cancel := context.WithTimeout(ctx, s.ConnectTimeout)
	defer cancel()
	tools, err := sess.Tools(lctx)
	if err != nil {
		return ProbeServer{}, nil, err
	}
	e := ProbeServer{Launch: s.Launch(), SupportsParallelToolCalls: s.Parallel}
	if s.RequestTimeout != DefaultRequestTimeout {
		e.RequestTimeoutMs = s.RequestTimeout.Milliseconds()
	}
	if info := sess.Info(); info != nil {
		if caps := info.Capabilities; caps != nil {
			e.Resources, e.Prompts = caps.Resources != nil, caps.Prompts != nil
			lc := ListChanged{
				Tools:     caps.Tools != nil && caps.Tools.ListChanged,
				Resources: caps.Resources != nil && caps.Resources.ListChanged,
				Prompts:   caps.Prompts != nil && caps.Prompts.ListChanged,
			}
			if lc.Tools || lc.Resources || lc.Prompts {
				e.ListChanged = &lc
			}
		}
		if si := info.ServerInfo; si != nil {
			e.ServerInfo = &ServerInfo{Name: si.Name, Version: si.Version, ProtocolVersion: info.ProtocolVersion}
		}
	}
	return e, tools, nil
}
