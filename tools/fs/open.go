package fs

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"syscall"

	"github.com/openclaw-go/openclaw/tools"
)

// kind names a tool in the messages for paths it cannot use.
type kind struct {
	// dir is the message for a directory, special for anything else that is
	// not a regular file (FIFO, socket, device); both take the shown path.
	dir, special string
}

var (
	readKind = kind{
		dir:     "Read requires a file path, but %s is a directory. List the directory, then read a specific file.",
		special: "Read only supports regular files; no read was attempted: %s",
	}
	editKind = kind{
		dir:     "Edit requires a file path, but %s is a directory.",
		special: "Edit only supports regular files; nothing was changed: %s",
	}
	writeKind = kind{
		dir:     "Write requires a file path, but %s is a directory.",
		special: "Write only supports regular files; nothing was written: %s",
	}
)

// check refuses anything but a regular file.
func (k kind) check(t *target, fi os.FileInfo) error {
	switch {
	case fi.IsDir():
		return tools.Errorf(tools.CodeFailed, k.dir, t.shown)
	case !fi.Mode().IsRegular():
		return tools.Errorf(tools.CodeFailed, k.special, t.shown)
	}
	return nil
}

// openRegular opens the target for reading without ever blocking: with
// O_NONBLOCK a FIFO opens at once (instead of waiting for a writer) and the
// type is then checked on the opened descriptor, so a path swapped between a
// file and a FIFO cannot slip through a stat-then-open gap.
func openRegular(t *target, k kind) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(t.real, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, openError(t, k, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, tools.AsError(err)
	}
	if err := k.check(t, fi); err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// openError maps an open failure onto the tool's messages. ENXIO is what
// open(2) says for a socket (or a device with no driver behind it).
func openError(t *target, k kind, err error) error {
	switch {
	case errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return tools.Errorf(tools.CodeNotFound, "File not found: %s.", t.abs)
	case errors.Is(err, syscall.ENXIO) || errors.Is(err, syscall.ENODEV):
		return tools.Errorf(tools.CodeFailed, k.special, t.shown)
	}
	return tools.AsError(err)
}

// DefaultEditMaxBytes is the largest file edit (and apply_patch) will
// change unless tools.fs.editMaxBytes says otherwise. They hold the whole
// file in memory, several copies of it while replacing, so without a cap
// a huge file relayed through the gateway costs its size there. The
// original has no cap; 16 MiB is far above any source file.
const DefaultEditMaxBytes int64 = 16 << 20

// editMaxBytes is tools.fs.editMaxBytes, or the default.
func editMaxBytes(env *tools.Env) int64 {
	if env != nil && env.Config != nil {
		if n := env.Config.Int("tools.fs.editMaxBytes", 0); n > 0 {
			return int64(n)
		}
	}
	return DefaultEditMaxBytes
}

// readCapped reads an opened regular file whole, refusing one larger than
// limit, by its size first and by what is really read (it may grow).
func readCapped(f io.Reader, fi os.FileInfo, t *target, limit int64) ([]byte, error) {
	tooBig := func(size string) error {
		return tools.Errorf(tools.CodeFailed,
			"%s is %s bytes, over the edit limit of %d (tools.fs.editMaxBytes); nothing was changed. "+
				"Raise the limit with `openclaw config set tools.fs.editMaxBytes <bytes>`.", t.shown, size, limit)
	}
	if fi.Size() > limit {
		return nil, tooBig(strconv.FormatInt(fi.Size(), 10))
	}
	data, err := readAll(io.LimitReader(f, limit+1), fi.Size())
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, tooBig(fmt.Sprintf("more than %d", limit)) // it grew
	}
	return data, nil
}

// readAll reads an opened regular file whole (edit needs all of it).
func readAll(f io.Reader, size int64) ([]byte, error) {
	buf := make([]byte, 0, size+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, tools.AsError(err)
		}
	}
}
