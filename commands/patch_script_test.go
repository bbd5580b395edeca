package commands

import (
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestScriptsPatch(t *testing.T) { t.Parallel(); testscript.Run(t, scriptParams("patch")) }
