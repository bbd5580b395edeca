package gateway

import (
	"sync"
	"testing"
	"time"
)

// BenchmarkHealthRoundTrip measures request/response throughput: four
// authenticated connections calling health in parallel.
func BenchmarkHealthRoundTrip(b *testing.B) {
	ts := startServer(b, Options{})
	const conns = 4
	clients := make([]*tclient, conns)
	for i := range clients {
		clients[i] = dialConnected(b, ts.url)
	}
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for i, c := range clients {
		n := b.N / conns
		if i < b.N%conns {
			n++
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < n; j++ {
				if f, err := c.tryCall("health", nil, 10*time.Second); err != nil || !f.OK {
					b.Errorf("health: %v %+v", err, f.Error)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
}

// BenchmarkHandshake measures a full connection: upgrade, challenge,
// connect, hello-ok, close.
func BenchmarkHandshake(b *testing.B) {
	ts := startServer(b, Options{})
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c := dial(b, ts.url)
		if f := c.connect(connectParams()); !f.OK {
			b.Fatalf("connect: %+v", f.Error)
		}
		c.close()
	}
}
