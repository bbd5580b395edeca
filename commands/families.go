package commands

// The tool families: importing a package registers its actions.
import (
	_ "github.com/openclaw-go/openclaw/tools/all"
)
