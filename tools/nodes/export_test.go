package nodes

// SetMaxPending lowers the pending-request cap for a test; the returned
// func restores it.
func SetMaxPending(n int) (restore func()) {
	old := maxPending
	maxPending = n
	return func() { maxPending = old }
}
