// Package channels declares the message channel methods. Only
// channels.status exists so far (no channel adapter runs inside the gateway
// yet); the message family adds the rest here.
package channels

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

func init() {
	tools.Register(&tools.Action{
		Where:   tools.Gateway,
		Method:  "channels.status",
		Summary: "Show message channel status",
		Schema:  `{"type":"object","properties":{"probe":{"type":"boolean"},"timeoutMs":{"type":"integer","minimum":0}},"additionalProperties":false}`,
		Scope:   protocol.ScopeRead,
		Run: func(ctx context.Context, env *tools.Env, params json.RawMessage) (any, error) {
			// Channel adapters are not running inside the gateway yet.
			return map[string]any{"ts": time.Now().UnixMilli(), "channelOrder": []string{}, "channelLabels": map[string]any{},
				"channels": map[string]any{}}, nil
		},
		Render: func(w io.Writer, r gjson.Result) error {
			if len(r.Get("channelOrder").Array()) == 0 {
				_, err := fmt.Fprintln(w, "No channels running.")
				return err
			}
			for _, c := range r.Get("channelOrder").Array() {
				if _, err := fmt.Fprintln(w, c.String()); err != nil {
					return err
				}
			}
			return nil
		},
	})
}
