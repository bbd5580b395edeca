package pdf

import (
	"fmt"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/tools"
)

// Caps on what one call may decode and return: a few KB of nested Flate can
// inflate to gigabytes, and a ToUnicode map can turn one glyph code into a
// long string, so the file-size cap alone bounds neither time nor memory.
const (
	keyPageDecodedMb = "agents.defaults.pdfMaxDecodedMbPerPage"
	keyDocDecodedMb  = "agents.defaults.pdfMaxDecodedMb"
	keyPageTextChars = "agents.defaults.pdfMaxTextCharsPerPage"
	keyDocTextChars  = "agents.defaults.pdfMaxTextChars"

	defaultPageDecodedMb = 32
	defaultDocDecodedMb  = 128
	defaultPageTextChars = 1_000_000
	defaultDocTextChars  = 4_000_000

	// maxOperands bounds the operands the content parser holds before an
	// operator consumes them (each is a parsed value in memory).
	maxOperands = 1 << 18
	// maxTreeDepth bounds the page tree's depth (real trees have a few levels).
	maxTreeDepth = 64
)

// limits are the caps of one pdf call.
type limits struct {
	pageDecoded, docDecoded int64 // decoded stream bytes
	pageText, docText       int   // characters of extracted text
}

func loadLimits(cfg *config.Config) limits {
	mb := func(key string, def int) int64 { return int64(max(1, cfg.Int(key, def))) << 20 }
	return limits{
		pageDecoded: mb(keyPageDecodedMb, defaultPageDecodedMb),
		docDecoded:  mb(keyDocDecodedMb, defaultDocDecodedMb),
		pageText:    max(1, cfg.Int(keyPageTextChars, defaultPageTextChars)),
		docText:     max(1, cfg.Int(keyDocTextChars, defaultDocTextChars)),
	}
}

// capError is a cap that was hit: the extraction stops there.
type capError struct {
	what  string // "decoded stream bytes", ...
	key   string // config key that sets the cap
	limit int64
	unit  string
}

func (e *capError) Error() string {
	return fmt.Sprintf("%s over the limit of %d %s (%s); stopped, the PDF may be a decompression bomb", e.what, e.limit, e.unit, e.key)
}

// toolError is the cap as the tool's error, exit 2 like the file-size cap.
func (e *capError) toolError(ref string, page int) *tools.Error {
	return tools.Errorf(tools.CodeInvalidParams, "PDF %s: page %d: %v", ref, page, e).
		WithDetails(map[string]any{"error": "pdf_cap_exceeded", "pdf": ref, "page": page, "cap": e.key, "limit": e.limit})
}
