// Command gwbench measures a gateway from the outside: start-to-ready time
// and RSS of a gateway process it starts itself, and `health` throughput and
// latency over N WebSocket connections. It works against any protocol-v4
// gateway (ours or the original), so both are measured with the same client.
//
//	gwbench -port 18799 -token T -- openclaw serve --port 18799 --auth token --token T
//	gwbench -url ws://127.0.0.1:18789 -token T            (an already running gateway)
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/openclaw-go/openclaw/client"
	"github.com/openclaw-go/openclaw/protocol"
)

func main() {
	url := flag.String("url", "", "gateway URL (default ws://127.0.0.1:<port>)")
	port := flag.Int("port", 18789, "port of the gateway to start or reach")
	token := flag.String("token", "", "gateway token")
	conns := flag.Int("conns", 4, "concurrent connections")
	dur := flag.Duration("duration", 5*time.Second, "load duration")
	readyTimeout := flag.Duration("ready-timeout", 120*time.Second, "how long to wait for /readyz")
	flag.Parse()
	if *url == "" {
		*url = "ws://127.0.0.1:" + strconv.Itoa(*port)
	}
	var proc *exec.Cmd
	if args := flag.Args(); len(args) > 0 {
		proc = exec.Command(args[0], args[1:]...)
		proc.Stdout, proc.Stderr = nil, nil
		start := time.Now()
		if err := proc.Start(); err != nil {
			fail("start: %v", err)
		}
		defer func() { proc.Process.Signal(os.Interrupt); proc.Wait() }()
		if err := waitReady(*port, *readyTimeout); err != nil {
			fail("%v", err)
		}
		fmt.Printf("start to ready:   %8.1f ms\n", float64(time.Since(start).Microseconds())/1000)
		time.Sleep(500 * time.Millisecond)
		fmt.Printf("idle RSS:         %8.1f MiB\n", rssMiB(proc.Process.Pid))
	}
	load(*url, *token, *conns, *dur)
	if proc != nil {
		fmt.Printf("RSS after load:   %8.1f MiB\n", rssMiB(proc.Process.Pid))
	}
}

// waitReady polls /readyz (falling back to /health) every millisecond.
func waitReady(port int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	c := &http.Client{Timeout: 200 * time.Millisecond}
	for time.Now().Before(deadline) {
		for _, p := range []string{"/readyz", "/health"} {
			resp, err := c.Get("http://127.0.0.1:" + strconv.Itoa(port) + p)
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode == 200 {
					return nil
				}
			}
		}
		time.Sleep(time.Millisecond)
	}
	return fmt.Errorf("gateway on port %d not ready after %s", port, timeout)
}

// load runs health calls back to back on each connection for d.
func load(url, token string, conns int, d time.Duration) {
	ctx := context.Background()
	var mu sync.Mutex
	var lat []time.Duration
	var errs int
	var wg sync.WaitGroup
	// A gateway may answer /readyz before it admits clients (the original
	// says "gateway starting"): make sure one connection works first.
	if c, err := dialRetry(ctx, url, token); err != nil {
		fail("dial: %v", err)
	} else {
		c.Close()
	}
	start := time.Now()
	for i := 0; i < conns; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := dialRetry(ctx, url, token)
			if err != nil {
				fail("dial: %v", err)
			}
			defer conn.Close()
			var mine []time.Duration
			n := 0
			for time.Since(start) < d {
				t0 := time.Now()
				if _, err := conn.Call(ctx, "health", nil); err != nil {
					n++
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			lat = append(lat, mine...)
			errs += n
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	pct := func(p float64) float64 {
		if len(lat) == 0 {
			return 0
		}
		return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000
	}
	fmt.Printf("health over %d connections for %s: %d calls, %d errors\n", conns, d, len(lat), errs)
	fmt.Printf("throughput:       %8.0f req/s\n", float64(len(lat))/elapsed.Seconds())
	fmt.Printf("latency:          p50 %.2f ms  p99 %.2f ms  max %.2f ms\n", pct(0.5), pct(0.99), pct(1))
}

// dialRetry dials, retrying retryable refusals for up to a minute.
func dialRetry(ctx context.Context, url, token string) (*client.Conn, error) {
	deadline := time.Now().Add(time.Minute)
	for {
		conn, err := client.Dial(ctx, client.Options{URL: url, Token: token, ClientID: "cli", ClientMode: "cli",
			Version: "gwbench", Scopes: []string{protocol.ScopeRead}})
		if err == nil || time.Now().After(deadline) {
			return conn, err
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func rssMiB(pid int) float64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	var kb float64
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			kb, _ = strconv.ParseFloat(strings.Fields(line)[1], 64)
		}
	}
	// A gateway started through a wrapper script: add its children.
	if kids, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + strconv.Itoa(pid) + "/children"); err == nil {
		for _, k := range strings.Fields(string(kids)) {
			if n, err := strconv.Atoi(k); err == nil {
				kb += rssMiB(n) * 1024
			}
		}
	}
	return kb / 1024
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "gwbench: "+format+"\n", args...)
	os.Exit(1)
}
