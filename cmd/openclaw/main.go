// Command openclaw is the OpenClaw agent tool surface as one static binary.
// It is where the binary is assembled: the tool families are linked here
// (tools/all), so the CLI package knows none of them by name.
package main

import (
	"os"

	"github.com/openclaw-go/openclaw/commands"
	_ "github.com/openclaw-go/openclaw/tools/all"
)

func main() {
	os.Exit(commands.Main(os.Args, os.Stdin, os.Stdout, os.Stderr))
}
