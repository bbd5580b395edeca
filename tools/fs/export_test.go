package fs

import "context"

// WithBeforeCommit runs fn(path) after an edit has read and changed the
// file and just before it commits, so tests can change the file at the
// worst moment (from another process).
func WithBeforeCommit(ctx context.Context, fn func(path string)) context.Context {
	return context.WithValue(ctx, beforeCommitKey{}, fn)
}
