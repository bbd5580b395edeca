//go:build !unix

package message

// privateDir: without Unix ownership, no shared temp root is trusted.
func privateDir(string) bool { return false }
