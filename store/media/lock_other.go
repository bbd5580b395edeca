//go:build !unix

package media

// lockDir is a no-op where flock is missing: a sweep racing a save of the
// same bytes may then remove the renewed file (the save's caller can save
// again).
func lockDir(root string, exclusive bool) (func(), error) { return func() {}, nil }
