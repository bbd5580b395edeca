package image

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/openclaw-go/openclaw/netguard"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/fs"
)

// supported are the image types vision APIs accept.
var supported = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// load reads the image behind ref (path, ~/..., file://, data:, or an
// http(s) URL fetched through the SSRF guard of web_fetch) within
// maxBytes, and sniffs its type from the bytes (never trusting the name).
func load(ctx context.Context, env *tools.Env, ref string, maxBytes int64) ([]byte, string, error) {
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	lower := strings.ToLower(ref)
	var data []byte
	switch {
	case strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://"):
		var policy netguard.Policy
		_ = env.Config.Decode(netguard.PolicyKey, &policy)
		b, _, err := netguard.Download(ctx, policy, ref, maxBytes, "image")
		var big *netguard.TooLargeError
		if errors.As(err, &big) {
			return nil, "", tooLarge(ref, -1, maxBytes)
		}
		if err != nil {
			return nil, "", err
		}
		data = b
	case strings.HasPrefix(lower, "data:"):
		meta, payload, ok := strings.Cut(ref[len("data:"):], ",")
		if !ok || !strings.HasSuffix(strings.ToLower(meta), ";base64") {
			return nil, "", tools.Errorf(tools.CodeInvalidParams, "Invalid data URL: use data:<mime>;base64,<data>")
		}
		if int64(base64.StdEncoding.DecodedLen(len(payload))) > maxBytes+3 {
			return nil, "", tooLarge(ref, int64(base64.StdEncoding.DecodedLen(len(payload))), maxBytes)
		}
		b, err := base64.StdEncoding.DecodeString(payload)
		if err != nil {
			return nil, "", tools.Errorf(tools.CodeInvalidParams, "Invalid data URL: %v", err)
		}
		data = b
	default:
		b, err := readLocal(env, ref, maxBytes)
		if err != nil {
			return nil, "", err
		}
		data = b
	}
	if int64(len(data)) > maxBytes {
		return nil, "", tooLarge(ref, int64(len(data)), maxBytes)
	}
	if len(data) == 0 {
		return nil, "", tools.Errorf(tools.CodeInvalidParams, "image is empty: %s", ref)
	}
	mime := http.DetectContentType(data)
	if !supported[mime] {
		kind, _, _ := strings.Cut(mime, ";")
		return nil, "", tools.Errorf(tools.CodeInvalidParams, "Unsupported media type: %s (%s)", kind, ref)
	}
	return data, mime, nil
}

// readLocal reads a path, ~/... or file:// reference (relative paths are
// taken against the workspace) as the file tools open theirs, within
// maxBytes: an oversized file is refused by its size, never read whole.
func readLocal(env *tools.Env, ref string, maxBytes int64) ([]byte, error) {
	if !strings.HasPrefix(strings.ToLower(ref), "file://") && (strings.Contains(ref, "://") || hasScheme(ref)) {
		return nil, tools.Errorf(tools.CodeInvalidParams,
			"Unsupported image reference: %s. Use a file path, a file:// URL or a data: URL.", ref).
			WithDetails(map[string]any{"error": "unsupported_image_reference", "image": ref})
	}
	f, fi, err := fs.OpenLocal(env, ref, "image")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > maxBytes {
		return nil, tooLarge(ref, fi.Size(), maxBytes)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxBytes+1))
	if err != nil {
		return nil, tools.Errorf(tools.CodeFailed, "%s: %v", ref, err)
	}
	return b, nil
}

func tooLarge(ref string, size, maxBytes int64) error {
	if size < 0 { // a download stopped at the cap: its size is unknown
		return tools.Errorf(tools.CodeInvalidParams, "image too large: %s is over the %.1f MB limit (maxBytesMb, agents.defaults.mediaMaxMb)",
			ref, float64(maxBytes)/(1<<20))
	}
	return tools.Errorf(tools.CodeInvalidParams, "%s", fmt.Sprintf(
		"image too large: %s is %.1f MB, over the %.1f MB limit (maxBytesMb, agents.defaults.mediaMaxMb)",
		ref, float64(size)/(1<<20), float64(maxBytes)/(1<<20)))
}

// hasScheme reports a URL-like "scheme:" prefix of two or more letters
// ("image:0", "mailto:x"); one letter is a Windows drive, not a scheme.
func hasScheme(ref string) bool {
	i := strings.IndexByte(ref, ':')
	if i < 2 {
		return false
	}
	for j, c := range ref[:i] {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || j > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')
		if !ok {
			return false
		}
	}
	return true
}
