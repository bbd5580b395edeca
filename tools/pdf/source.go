package pdf

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"

	"github.com/openclaw-go/openclaw/netguard"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/fs"
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
	if !strings.HasPrefix(lower, "file://") && (strings.Contains(ref, "://") || strings.HasPrefix(lower, "data:")) {
		return nil, tools.Errorf(tools.CodeInvalidParams,
			"Unsupported PDF reference: %s. Use a file path, a file:// URL or an http(s) URL.", ref).
			WithDetails(map[string]any{"error": "unsupported_pdf_reference", "pdf": ref})
	}
	f, fi, err := fs.OpenLocal(env, ref, "PDF")
	if err != nil {
		return nil, err
	}
	if fi.Size() > maxBytes {
		f.Close()
		return nil, tools.Errorf(tools.CodeInvalidParams,
			"PDF too large: %s is %.1f MB, over the %.1f MB limit (maxBytesMb, agents.defaults.pdfMaxBytesMb)",
			ref, float64(fi.Size())/(1024*1024), float64(maxBytes)/(1024*1024))
	}
	return &source{ref: ref, size: fi.Size(), r: f, file: f}, nil
}
