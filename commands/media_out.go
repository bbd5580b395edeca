package commands

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/atomicfile"
	"github.com/openclaw-go/openclaw/gateway"
	"github.com/openclaw-go/openclaw/route"
	"github.com/openclaw-go/openclaw/store/media"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/tidwall/gjson"
	"github.com/urfave/cli/v2"
)

// mediaFlags gives actions whose results carry files an --out flag (unless
// their schema already has an "out" property).
func mediaFlags(a *tools.Action) []cli.Flag {
	if !a.Media || hasProp(a, "out") {
		return nil
	}
	return []cli.Flag{&cli.StringFlag{Name: "out", Usage: "copy the file the result refers to (MEDIA:<path>) to `FILE`; " +
		"an existing directory keeps the file names, - writes the bytes to stdout. A relayed call fetches it from the gateway"}}
}

// mediaRefs lists the files a result refers to: details.media (an object or
// an array of {path, mimeType, size}), then MEDIA:<path> lines in its text
// blocks, without duplicates.
func mediaRefs(res json.RawMessage) []tools.MediaRef {
	var refs []tools.MediaRef
	seen := map[string]bool{}
	add := func(ref tools.MediaRef) {
		if ref.Path != "" && !seen[ref.Path] {
			seen[ref.Path] = true
			refs = append(refs, ref)
		}
	}
	r := gjson.ParseBytes(res)
	m := r.Get("details.media")
	if m.IsObject() {
		m = gjson.Parse("[" + m.Raw + "]")
	}
	for _, v := range m.Array() {
		add(tools.MediaRef{Path: v.Get("path").String(), MimeType: v.Get("mimeType").String(), Size: v.Get("size").Int()})
	}
	for _, b := range r.Get("content").Array() {
		if b.Get("type").String() != "text" {
			continue
		}
		for _, line := range strings.Split(b.Get("text").String(), "\n") {
			if p, ok := strings.CutPrefix(strings.TrimSpace(line), "MEDIA:"); ok {
				add(tools.MediaRef{Path: strings.TrimSpace(p)})
			}
		}
	}
	return refs
}

// writeOut copies the result's files where --out says. It reports whether
// the bytes went to stdout (then the result itself is not printed).
func (r *runtime) writeOut(c *cli.Context, res json.RawMessage) (bool, error) {
	out := c.String("out")
	if out == "" {
		return false, nil
	}
	refs := mediaRefs(res)
	if len(refs) == 0 {
		return false, tools.Errorf(tools.CodeNotFound, "--out: the result refers to no file")
	}
	ctx := c.Context
	if d := c.Duration("timeout"); d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	fi, statErr := os.Stat(out)
	isDir := statErr == nil && fi.IsDir()
	if len(refs) > 1 && !isDir {
		return false, tools.Errorf(tools.CodeUsage, "--out: the result refers to %d files: give an existing directory", len(refs))
	}
	for _, ref := range refs {
		dst := out
		if isDir {
			name := media.Name(ref.Path)
			if name == "" {
				return false, tools.Errorf(tools.CodeFailed, "--out: cannot name a file for %q", ref.Path)
			}
			dst = filepath.Join(out, name)
		}
		n, err := r.copyMedia(ctx, ref, dst)
		if err != nil {
			return false, err
		}
		if dst != "-" && r.stdoutTTY() && !c.Bool("json") {
			fmt.Fprintf(r.stdout, "Saved %s (%d bytes)\n", dst, n)
		}
	}
	return out == "-", nil
}

// copyMedia opens the file (locally, or from the gateway that ran the call)
// and writes it to dst through a temp file and rename.
func (r *runtime) copyMedia(ctx context.Context, ref tools.MediaRef, dst string) (int64, error) {
	var src io.ReadCloser
	var err error
	if r.relayed != nil {
		src, err = fetchMedia(ctx, *r.relayed, ref)
	} else {
		src, err = openLocalMedia(ref.Path)
	}
	if err != nil {
		return 0, err
	}
	defer src.Close()
	if dst == "-" {
		n, err := io.Copy(r.stdout, src)
		if err != nil {
			return n, fmt.Errorf("--out: %w", err)
		}
		return n, nil
	}
	return writeFileAtomic(ctx, dst, src)
}

func openLocalMedia(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, tools.Errorf(tools.CodeNotFound, "--out: %s no longer exists", path)
		}
		return nil, fmt.Errorf("--out: %w", err)
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, tools.Errorf(tools.CodeFailed, "--out: %s is not a regular file", path)
	}
	return f, nil
}

// fetchMedia downloads a result file from the gateway's media route with
// the call's token or password as a bearer token.
func fetchMedia(ctx context.Context, t route.Target, ref tools.MediaRef) (io.ReadCloser, error) {
	name := media.Name(ref.Path)
	if name == "" {
		return nil, tools.Errorf(tools.CodeFailed, "--out: %q is not a gateway media file", ref.Path)
	}
	u, err := url.Parse(t.URL)
	if err != nil {
		return nil, tools.Errorf(tools.CodeUsage, "--out: gateway URL %q: %v", t.URL, err)
	}
	switch u.Scheme {
	case "ws", "http":
		u.Scheme = "http"
	case "wss", "https":
		u.Scheme = "https"
	default:
		return nil, tools.Errorf(tools.CodeUsage, "--out: gateway URL %q: unsupported scheme", t.URL)
	}
	u.Path, u.RawQuery, u.Fragment = gateway.MediaRoute+name, "", ""
	// A relayed call without --timeout still must not hang on a stuck
	// gateway; the parent's deadline wins when it is sooner.
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	req, err := mediaRequest(ctx, u.String(), t)
	if err != nil {
		cancel()
		return nil, err
	}
	body, err := doMedia(req)
	if err != nil {
		cancel()
		return nil, err
	}
	return cancelOnClose{body, cancel}, nil
}

func mediaRequest(ctx context.Context, u string, t route.Target) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("--out: %w", err)
	}
	if secret := t.Secret(); secret != "" {
		req.Header.Set("Authorization", "Bearer "+secret)
	}
	return req, nil
}

func doMedia(req *http.Request) (io.ReadCloser, error) {
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, tools.Errorf(tools.CodeTimeout, "--out: fetching %s timed out", req.URL.Path)
		}
		return nil, tools.Errorf(tools.CodeUnreachable, "--out: %v", err)
	}
	if resp.StatusCode == http.StatusOK {
		return limitedBody{io.LimitReader(resp.Body, media.DefaultMaxBytes), resp.Body}, nil
	}
	resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusUnauthorized, http.StatusTooManyRequests:
		return nil, tools.Errorf(tools.CodeAuth, "--out: the gateway refused the media fetch (%s): check --token/--password", resp.Status)
	case http.StatusNotFound:
		return nil, tools.Errorf(tools.CodeNotFound, "--out: the gateway has no media file %s", req.URL.Path)
	}
	return nil, tools.Errorf(tools.CodeFailed, "--out: media fetch: %s", resp.Status)
}

// limitedBody caps what a gateway may send at the media size cap.
type limitedBody struct {
	io.Reader
	io.Closer
}

type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c cancelOnClose) Close() error { err := c.ReadCloser.Close(); c.cancel(); return err }

// writeFileAtomic writes src to dst through atomicfile (temp file in dst's
// directory, fsync, rename, fsync of the directory), so dst is never left
// half-written; a deadline stops the copy and leaves dst as it was.
func writeFileAtomic(ctx context.Context, dst string, src io.Reader) (int64, error) {
	n, err := atomicfile.WriteFrom(ctx, dst, src, 0o644)
	if err != nil {
		if ctx.Err() != nil {
			return n, tools.Errorf(tools.CodeTimeout, "--out: %v", ctx.Err())
		}
		return n, fmt.Errorf("--out: %w", err)
	}
	return n, nil
}
