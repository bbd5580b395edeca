package memory

import (
	"strconv"
	"strings"
	"time"
)

// noteStat is what the scan records of a note: enough to see any change
// without reading it. Size and mtime alone miss an edit that keeps the size
// and restores (or never moves) the mtime; ctime cannot be set by a caller
// and the inode changes when a note is replaced by a rename.
type noteStat struct {
	ino, size, mtime, ctime int64
}

// scanned is one note found by the scan.
type scanned struct {
	rel string // slash path relative to the workspace root
	st  noteStat
}

// racyWindow is how close to a scan a note's last change may be before its
// stat stops proving it unchanged: timestamps come from a coarse clock (a
// few ms on Linux, 1-2 s on some file systems), so a second write in the
// same tick as the read leaves the stat as it was. Such notes are re-hashed
// on each sync until they are older than this (git's "racily clean" rule).
var racyWindow = 2 * time.Second

// racy reports whether a note changed too close to scanStart (Unix ns) for
// its stat to be trusted next time.
func (s noteStat) racy(scanStart int64) bool {
	return max(s.mtime, s.ctime) >= scanStart-racyWindow.Nanoseconds()
}

// signature digests a whole scan, in any order: the sum of one mixed hash
// per note. Equal signatures (and counts) mean no note was added, removed,
// renamed or re-stat'ed, so the warm path compares one value instead of
// loading every row of the files table.
func signature(notes []scanned) string {
	var sum uint64
	for i := range notes {
		sum += noteHash(notes[i].rel, notes[i].st)
	}
	return strconv.Itoa(len(notes)) + ":" + strconv.FormatUint(sum, 16)
}

func noteHash(rel string, st noteStat) uint64 {
	h := uint64(14695981039346656037) // FNV-1a over the path
	for i := 0; i < len(rel); i++ {
		h ^= uint64(rel[i])
		h *= 1099511628211
	}
	for _, v := range [...]int64{st.ino, st.size, st.mtime, st.ctime} {
		h = mix64(h ^ uint64(v))
	}
	return h
}

// mix64 is splitmix64's finalizer: every input bit flips about half the
// output bits, so the per-note hashes add up without cancelling.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// isNoteName: *.md, any case.
func isNoteName(name string) bool {
	return len(name) > 3 && strings.EqualFold(name[len(name)-3:], ".md")
}
