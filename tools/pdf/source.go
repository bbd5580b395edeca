package pdf

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/openclaw-go/openclaw/netguard"
	"github.com/openclaw-go/openclaw/tools"
)

// source is one PDF ready to read: a local file (read through ReaderAt)
// or a download held in memory (within the size cap).
type source struct {
	ref  string
	size int64
	r    io.ReaderAt
	file *os.File
}

func (s *source) Close() {
	if s.file != nil {
		s.file.Close()
	}
}

// bytes returns the whole document (native providers take the file
// itself); the size cap was checked when it was opened.
func (s *source) bytes() ([]byte, error) {
	b := make([]byte, s.size)
	if _, err := s.r.ReadAt(b, 0); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return b, nil
}

// openSource resolves ref (path, ~/..., file://, or an http(s) URL fetched
// through web_fetch's SSRF guard) and checks the size cap.
func openSource(ctx context.Context, env *tools.Env, ref string, maxBytes int64) (*source, error) {
	lower := strings.ToLower(ref)
	if strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://") {
		var policy netguard.Policy
		if env.Config != nil {
			_ = env.Config.Decode(netguard.PolicyKey, &policy)
		}
		b, _, err := netguard.Download(ctx, policy, ref, maxBytes, "pdf")
		var big *netguard.TooLargeError
		if errors.As(err, &big) {
			return nil, tools.Errorf(tools.CodeInvalidParams,
				"PDF too large: %s is over the %.1f MB limit (maxBytesMb, agents.defaults.pdfMaxBytesMb)", ref, float64(maxBytes)/(1024*1024))
		}
		if err != nil {
			return nil, err
		}
		return &source{ref: ref, size: int64(len(b)), r: bytes.NewReader(b)}, nil
	}
	path, err := localPath(env, ref)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, tools.Errorf(tools.CodeNotFound, "PDF not found: %s", ref)
		}
		return nil, tools.Errorf(tools.CodeFailed, "%s: %v", ref, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, tools.Errorf(tools.CodeFailed, "%s: %v", ref, err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, tools.Errorf(tools.CodeInvalidParams, "%s is not a regular file", ref)
	}
	if fi.Size() > maxBytes {
		f.Close()
		return nil, tools.Errorf(tools.CodeInvalidParams,
			"PDF too large: %s is %.1f MB, over the %.1f MB limit (maxBytesMb, agents.defaults.pdfMaxBytesMb)",
			ref, float64(fi.Size())/(1024*1024), float64(maxBytes)/(1024*1024))
	}
	return &source{ref: ref, size: fi.Size(), r: f, file: f}, nil
}

// localPath resolves a PDF reference to a local file: a path (relative to
// the workspace), ~/..., or file://.
func localPath(env *tools.Env, ref string) (string, error) {
	lower := strings.ToLower(ref)
	switch {
	case strings.HasPrefix(lower, "file://"):
		u, err := url.Parse(ref)
		if err != nil || (u.Host != "" && !strings.EqualFold(u.Host, "localhost")) || u.Path == "" {
			return "", tools.Errorf(tools.CodeInvalidParams, "Invalid file URL: %s. Use file:///absolute/path or a plain path.", ref)
		}
		return filepath.FromSlash(u.Path), nil
	case strings.Contains(ref, "://") || strings.HasPrefix(lower, "data:"):
		return "", tools.Errorf(tools.CodeInvalidParams,
			"Unsupported PDF reference: %s. Use a file path, a file:// URL or an http(s) URL.", ref).
			WithDetails(map[string]any{"error": "unsupported_pdf_reference", "pdf": ref})
	}
	p := tools.ExpandHome(strings.TrimPrefix(ref, "@"))
	if !filepath.IsAbs(p) {
		p = filepath.Join(env.WorkspaceDir(), p)
	}
	return filepath.Clean(p), nil
}
