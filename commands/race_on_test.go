//go:build race

package commands

// raceEnabled: this test binary (and every gateway it re-executes) runs
// under the race detector, whose shadow memory multiplies a process's RSS.
const raceEnabled = true
