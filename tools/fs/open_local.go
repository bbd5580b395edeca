package fs

import (
	"errors"
	"os"

	"github.com/openclaw-go/openclaw/tools"
)

// OpenLocal opens a local file argument of a tool that reads media (image,
// pdf) the way the file tools open theirs: ~, file:// and @ resolved,
// relative to the workspace, tools.fs.workspaceOnly applied, and opened
// without blocking on a FIFO, refusing anything but a regular file. what
// names the file in messages ("image", "PDF"). The caller checks the size
// (fi) against its own cap before reading.
func OpenLocal(env *tools.Env, ref, what string) (*os.File, os.FileInfo, error) {
	t, err := resolve(env, ref)
	if err != nil {
		return nil, nil, err
	}
	k := kind{
		dir:     what + " requires a file path, but %s is a directory.",
		special: what + " only supports regular files: %s",
	}
	f, fi, err := openRegular(t, k)
	var fe *tools.Error
	if err != nil && errors.As(err, &fe) && fe.Code == tools.CodeNotFound {
		return nil, nil, tools.Errorf(tools.CodeNotFound, "%s not found: %s", what, t.shown)
	}
	return f, fi, err
}
