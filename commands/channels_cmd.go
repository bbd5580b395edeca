package commands

import "github.com/urfave/cli/v2"

// channelsCommand is `openclaw channels status [--probe]`: the gateway's
// channels.* methods (methodcmds.go), as the original CLI's command.
func (r *runtime) channelsCommand() *cli.Command {
	return r.methodGroupCommand(methodGroup{
		Name:   "channels",
		Prefix: "channels.",
		Except: []string{"channels.pairing."},
		Usage:  "message channel accounts on the gateway: status, probe (channels.*)",
		Description: "Each configured channel (channels.telegram, channels.discord, channels.slack) and its accounts;\n" +
			"--probe checks each token against the platform (Telegram getMe, Discord users/@me, Slack auth.test).\n\n" +
			"EXAMPLES:\n   openclaw channels status\n   openclaw channels status --probe --json",
	})
}
