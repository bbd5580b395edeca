//go:build !unix

package media

const oNoFollow = 0
