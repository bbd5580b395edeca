//go:build !unix

package patch

import "os"

func hardLinked(os.FileInfo) bool { return false }
