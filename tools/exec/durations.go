package exectool

import (
	"fmt"
	"time"

	"github.com/openclaw-go/openclaw/tools"
)

// Durations come in as float seconds or milliseconds; converted naively, a
// huge value (1e308) overflows time.Duration into a negative one that
// fires at once. Params out of range are refused (exit 2); config values
// and clamped params are bounded before the conversion.

// maxTimeoutS is the longest exec timeout (timeout, timeoutSeconds and
// tools.exec.timeoutSeconds): 30 days.
const maxTimeoutS = 30 * 24 * 3600

const maxTimeout = maxTimeoutS * time.Second

// checkTimeoutParam refuses an exec timeout param beyond maxTimeoutS.
func checkTimeoutParam(name string, v *float64) error {
	if v != nil && (*v > maxTimeoutS || *v != *v) {
		return tools.Errorf(tools.CodeInvalidParams, "%s must be between 0 and %d seconds (30 days), got %s", name, maxTimeoutS, fmt.Sprint(*v))
	}
	return nil
}

// secondsDuration converts seconds, clamped to [0, maxTimeout].
func secondsDuration(s float64) time.Duration {
	switch {
	case !(s > 0):
		return 0
	case s >= maxTimeoutS:
		return maxTimeout
	}
	return time.Duration(s * float64(time.Second))
}

// millisDuration converts milliseconds, clamped to [0, hi].
func millisDuration(ms float64, hi time.Duration) time.Duration {
	switch {
	case !(ms > 0):
		return 0
	case ms >= float64(hi/time.Millisecond):
		return hi
	}
	return time.Duration(ms * float64(time.Millisecond))
}
