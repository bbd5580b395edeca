// Command openclaw is the OpenClaw agent tool surface as one static binary.
package main

import (
	"os"

	"github.com/openclaw-go/openclaw/commands"
)

func main() {
	os.Exit(commands.Main(os.Args, os.Stdin, os.Stdout, os.Stderr))
}
