package commands

import "github.com/urfave/cli/v2"

// tasksCommand is `openclaw tasks list|get|cancel`: the gateway's
// background work, generated from its tasks.* methods (methodcmds.go;
// results stay readable after the starting client has gone).
func (r *runtime) tasksCommand() *cli.Command {
	return r.methodGroupCommand(methodGroup{
		Name:   "tasks",
		Prefix: "tasks.",
		Usage:  "background tasks on the gateway: list, show, cancel (tasks.*)",
		Description: "Work that outlives its request (background exec, agent runs, cron runs) runs on the gateway\n" +
			"as a task with an id; it survives the starting client's disconnect and is cancelled at\n" +
			"gateway shutdown. Progress and the end are broadcast as `task` events.\n\n" +
			"EXAMPLES:\n   openclaw tasks list\n   openclaw tasks get 2b7c…\n   openclaw tasks cancel 2b7c…",
	})
}
