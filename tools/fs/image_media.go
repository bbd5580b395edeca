package fs

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/openclaw-go/openclaw/tools"
)

// maxInlineImage is the largest image read returns inline as a base64
// image block (the model-facing shape of the original). Larger images are
// not inlined (the JSON envelope is capped and re-encoded at every hop):
// the agent text names the stored copy as MEDIA:<path> instead.
const maxInlineImage = 5 << 20

// imageDetails carries the stored copy's reference.
type imageDetails struct {
	Media tools.MediaRef `json:"media"`
}

// readImage answers a read of an image: the original's text block and
// image block, plus details.media pointing at a copy under <state>/media
// (when the caller provides media storage) that --out and relayed callers
// fetch.
func readImage(ctx context.Context, env *tools.Env, r io.Reader, size int64, mime, shown string) (*tools.Result, error) {
	label := fmt.Sprintf("Read image file [%s]", mime)
	if size <= maxInlineImage {
		data, err := readAll(r, size)
		if err != nil {
			return nil, err
		}
		res := &tools.Result{Content: []tools.Block{tools.TextBlock(label), tools.ImageBlock(data, mime)}}
		if env.Media != nil {
			ref, err := env.Media.Save(ctx, bytes.NewReader(data), mime, shown)
			if err != nil {
				return nil, tools.AsError(err)
			}
			res.Details = imageDetails{ref}
		}
		return res, nil
	}
	media, err := env.NeedMedia("reading an image over 5 MiB")
	if err != nil {
		return nil, err
	}
	ref, err := media.Save(ctx, r, mime, shown)
	if err != nil {
		return nil, tools.AsError(err)
	}
	text := fmt.Sprintf("%s\nImage too large to inline (%d bytes, limit %d): saved as\nMEDIA:%s", label, ref.Size, maxInlineImage, ref.Path)
	return &tools.Result{Content: []tools.Block{tools.TextBlock(text)}, Details: imageDetails{ref}}, nil
}
