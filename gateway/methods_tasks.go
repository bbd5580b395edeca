package gateway

import (
	"context"
	"encoding/json"
	"time"

	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

// cancelWait bounds how long tasks.cancel waits for the task to end, so its
// answer usually shows the final "cancelled" state.
const cancelWait = 5 * time.Second

// Background work is listed, read and cancelled under the original's
// tasks.* names and scopes (tasks.list/get R, tasks.cancel W).
func init() {
	registerMethod(&tools.Action{
		Method:  "tasks.list",
		Summary: "List running tasks and the last finished ones",
		Schema:  `{"type":"object","properties":{},"additionalProperties":false}`,
		Scope:   protocol.ScopeRead,
		Render:  renderTasks,
		Run: func(ctx context.Context, env *tools.Env, _ json.RawMessage) (any, error) {
			jobs, err := env.NeedJobs("tasks.list")
			if err != nil {
				return nil, err
			}
			return map[string]any{"tasks": jobs.List()}, nil
		},
	})
	registerMethod(&tools.Action{
		Method:  "tasks.get",
		Summary: "Show one task, with its result once finished",
		Schema:  taskIDSchema,
		Args:    []string{"taskId"},
		Scope:   protocol.ScopeRead,
		Run: func(ctx context.Context, env *tools.Env, params json.RawMessage) (any, error) {
			jobs, err := env.NeedJobs("tasks.get")
			if err != nil {
				return nil, err
			}
			id := taskID(params)
			info, ok := jobs.Get(id)
			if !ok {
				return nil, tools.Errorf(tools.CodeNotFound, "task not found: %s", id)
			}
			return map[string]any{"task": info}, nil
		},
	})
	registerMethod(&tools.Action{
		Method:  "tasks.cancel",
		Summary: "Cancel a running task",
		Schema:  taskIDSchema,
		Args:    []string{"taskId"},
		Scope:   protocol.ScopeWrite,
		Run: func(ctx context.Context, env *tools.Env, params json.RawMessage) (any, error) {
			jobs, err := env.NeedJobs("tasks.cancel")
			if err != nil {
				return nil, err
			}
			id := taskID(params)
			before, ok := jobs.Get(id)
			if !ok {
				// Not an error: the original answers an unknown id in the payload.
				return map[string]any{"found": false, "cancelled": false, "reason": "Task not found."}, nil
			}
			if err := jobs.Cancel(id); err != nil {
				return nil, err
			}
			info := before
			if w, ok := jobs.(interface {
				Wait(context.Context, string) (tools.JobInfo, error)
			}); ok && before.Status == tools.JobRunning {
				wctx, cancel := context.WithTimeout(ctx, cancelWait)
				if got, err := w.Wait(wctx, id); err == nil {
					info = got
				} else if cur, ok := jobs.Get(id); ok {
					info = cur
				}
				cancel()
			}
			return map[string]any{"ok": true, "found": true, "cancelled": before.Status == tools.JobRunning, "task": info}, nil
		},
	})
}

const taskIDSchema = `{"type":"object","required":["taskId"],"properties":{
	"taskId":{"type":"string","minLength":1,"description":"Task id (from the starting call, tasks.list or a task event)"}},
	"additionalProperties":false}`

func taskID(params json.RawMessage) string {
	var p struct {
		TaskID string `json:"taskId"`
	}
	_ = json.Unmarshal(params, &p)
	return p.TaskID
}
