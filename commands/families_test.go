package commands

// The binary links the families in cmd/openclaw; the tests link them here.
import _ "github.com/openclaw-go/openclaw/tools/all"
