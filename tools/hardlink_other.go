//go:build !unix

package tools

import "os"

// HardLinked: without a link count, no file is known to have other names.
func HardLinked(os.FileInfo) bool { return false }
