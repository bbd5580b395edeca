package nodehost

import (
	"sort"
	"testing"
	"time"
)

// BenchmarkInvokeSystemWhich is node.invoke's round trip on the node's
// side over one connection: node.invoke.request out, node.invoke.result
// back, one at a time (the gateway side is the in-process test gateway).
// It reports requests/s and the median latency.
func BenchmarkInvokeSystemWhich(b *testing.B) {
	gw := newTestGW(b, "tok")
	o := hostOptions(b, gw)
	runHost(b, o)
	gw.waitFor("connected", func() bool { return len(gw.conns) == 1 })
	params := map[string]any{"bins": []string{"sh", "ls"}}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if r := gw.invoke("system.which", params, 10000); !r.OK {
			b.Fatalf("%s", r.raw)
		}
		lat = append(lat, time.Since(t0))
	}
	elapsed := time.Since(start)
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
}
