package commands

import "github.com/urfave/cli/v2"

// pairingCommand is `openclaw pairing list|approve`: DM pairing on the
// gateway's channel accounts (channels.pairing.*), as the original CLI's
// command.
func (r *runtime) pairingCommand() *cli.Command {
	return r.methodGroupCommand(methodGroup{
		Name:   "pairing",
		Prefix: "channels.pairing.",
		Usage:  "approve who may message the agent on a chat channel: list, approve (channels.pairing.*)",
		Description: "A sender the gateway does not know gets an 8-character pairing code (dmPolicy \"pairing\", the default);\n" +
			"approving the code lets that sender talk to the agent. Codes expire after an hour.\n\n" +
			"EXAMPLES:\n   openclaw pairing list telegram\n   openclaw pairing approve telegram ABCD2345 --notify",
	})
}
