package commands

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/openclaw-go/openclaw/protocol"
	"github.com/tidwall/gjson"
	"github.com/urfave/cli/v2"
)

// tasksCommand is `openclaw tasks list|get|cancel`: the gateway's
// background work (tasks.* methods; results stay readable after the
// starting client has gone).
func (r *runtime) tasksCommand() *cli.Command {
	flags := func() []cli.Flag { return append(outputFlags(), connFlags()...) }
	return &cli.Command{
		Name:  "tasks",
		Usage: "background tasks on the gateway: list, show, cancel (tasks.*)",
		Description: "Work that outlives its request (background exec, agent runs, cron runs) runs on the gateway\n" +
			"as a task with an id; it survives the starting client's disconnect and is cancelled at\n" +
			"gateway shutdown. Progress and the end are broadcast as `task` events.\n\n" +
			"EXAMPLES:\n   openclaw tasks list\n   openclaw tasks get 2b7c…\n   openclaw tasks cancel 2b7c…",
		Subcommands: []*cli.Command{
			{
				Name: "list", Usage: "list running tasks and the last finished ones", Flags: flags(),
				Action: func(c *cli.Context) error {
					res, err := r.callScopes(c, "tasks.list", []string{protocol.ScopeRead}, json.RawMessage(`{}`), 10*time.Second)
					if err != nil {
						return err
					}
					return r.emit(c, renderTasks, res)
				},
			},
			{
				Name: "get", Usage: "show one task, with its result once finished", ArgsUsage: "<taskId>", Flags: flags(),
				Action: func(c *cli.Context) error { return r.taskCall(c, "tasks.get", protocol.ScopeRead) },
			},
			{
				Name: "cancel", Usage: "cancel a running task", ArgsUsage: "<taskId>", Flags: flags(),
				Action: func(c *cli.Context) error { return r.taskCall(c, "tasks.cancel", protocol.ScopeWrite) },
			},
		},
	}
}

func (r *runtime) taskCall(c *cli.Context, method, scope string) error {
	id, err := oneArg(c, "taskId")
	if err != nil {
		return err
	}
	res, err := r.callScopes(c, method, []string{scope}, mustJSON(map[string]string{"taskId": id}), 10*time.Second)
	if err != nil {
		return err
	}
	return r.emit(c, nil, res)
}

func renderTasks(w io.Writer, v gjson.Result) error {
	list := v.Get("tasks").Array()
	if len(list) == 0 {
		_, err := fmt.Fprintln(w, "No tasks.")
		return err
	}
	rows := make([][]string, 0, len(list))
	for _, t := range list {
		rows = append(rows, []string{t.Get("id").String(), t.Get("kind").String(), t.Get("status").String(),
			t.Get("startedAt").String(), t.Get("owner").String()})
	}
	return writeTable(w, Palette{}, []string{"ID", "KIND", "STATUS", "STARTED", "OWNER"}, rows)
}
