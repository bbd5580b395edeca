package nodehost

import (
	"bufio"
	"bytes"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

// hostStats is node.host.stats' payload, the original's shape
// (src/node-host/host-stats.ts): cpuCount, loadAverage (omitted when all
// zero), memoryTotalBytes, memoryFreeBytes and, when the home directory's
// file system answers, diskTotalBytes and diskAvailableBytes.
type hostStats struct {
	CPUCount           int       `json:"cpuCount"`
	LoadAverage        []float64 `json:"loadAverage,omitempty"`
	MemoryTotalBytes   int64     `json:"memoryTotalBytes"`
	MemoryFreeBytes    int64     `json:"memoryFreeBytes"`
	DiskTotalBytes     *int64    `json:"diskTotalBytes,omitempty"`
	DiskAvailableBytes *int64    `json:"diskAvailableBytes,omitempty"`
}

func sampleStats() hostStats {
	s := hostStats{CPUCount: min(max(runtime.NumCPU(), 1), 4096)}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		f := strings.Fields(string(b))
		var la []float64
		nonzero := false
		for i := 0; i < 3 && i < len(f); i++ {
			v, _ := strconv.ParseFloat(f[i], 64)
			v = min(max(v, 0), 1e5)
			nonzero = nonzero || v != 0
			la = append(la, v)
		}
		if nonzero && len(la) == 3 {
			s.LoadAverage = la
		}
	}
	total, avail := meminfo()
	s.MemoryTotalBytes, s.MemoryFreeBytes = total, min(avail, total)
	if home, err := os.UserHomeDir(); err == nil {
		var st syscall.Statfs_t
		if syscall.Statfs(home, &st) == nil {
			t := int64(st.Blocks) * int64(st.Bsize)
			a := min(int64(st.Bavail)*int64(st.Bsize), t)
			s.DiskTotalBytes, s.DiskAvailableBytes = &t, &a
		}
	}
	return s
}

// meminfo reads MemTotal and MemAvailable (what Node's os.freemem()
// reports on Linux).
func meminfo() (total, avail int64) {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, 0
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 {
			continue
		}
		v, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "MemTotal:":
			total = v * 1024
		case "MemAvailable:":
			avail = v * 1024
		}
	}
	return total, avail
}
