//go:build unix

package media

import "syscall"

const oNoFollow = syscall.O_NOFOLLOW
