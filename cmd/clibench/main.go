// Command clibench times whole processes: it runs a command N times and
// prints the median, min and max wall time. The timing is taken around
// fork/exec/wait in Go, so the measuring shell adds nothing.
//
//	clibench -n 20 -label "tools list" -- openclaw tools list --json
//	clibench -tty -- openclaw tools list    # stdout and stderr on a PTY
//	clibench -n 30 -vs old/openclaw -- new/openclaw tools list --json
//
// With -vs, the other binary runs the same arguments in alternation (paired
// runs share the machine's load) and both medians are printed with the
// median of the paired differences.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"time"

	"github.com/creack/pty"
)

func main() {
	n := flag.Int("n", 20, "runs")
	label := flag.String("label", "", "label to print (default: the command)")
	tty := flag.Bool("tty", false, "run with stdout and stderr on a pseudo-terminal (human output)")
	vs := flag.String("vs", "", "another binary to run with the same arguments, alternating (paired runs)")
	flag.Parse()
	args := flag.Args()
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: clibench [-n N] [-label L] -- command [args...]")
		os.Exit(2)
	}
	if *label == "" {
		*label = fmt.Sprint(args)
	}
	cpu := map[string][]time.Duration{} // user+system time of each run, by binary
	once := func(bin string) time.Duration {
		cmd := exec.Command(bin, args[1:]...)
		t0 := time.Now()
		if err := run(cmd, *tty); err != nil {
			fmt.Fprintf(os.Stderr, "clibench: %s (%s): %v\n", *label, bin, err)
			os.Exit(1)
		}
		d := time.Since(t0)
		cpu[bin] = append(cpu[bin], cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
		return d
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	if *vs != "" {
		var a, b, diff []time.Duration
		for i := 0; i < *n; i++ {
			var ta, tb time.Duration
			if i%2 == 0 { // alternate which goes first
				ta, tb = once(*vs), once(args[0])
			} else {
				tb, ta = once(args[0]), once(*vs)
			}
			a, b, diff = append(a, ta), append(b, tb), append(diff, tb-ta)
		}
		fmt.Printf("%-42s %s median %6.2f ms (cpu %5.2f) | %s median %6.2f ms (cpu %5.2f) | paired diff median %+6.2f ms  (%d pairs)\n",
			*label, *vs, ms(median(a)), ms(median(cpu[*vs])), args[0], ms(median(b)), ms(median(cpu[args[0]])), ms(median(diff)), *n)
		return
	}
	ts := make([]time.Duration, 0, *n)
	for i := 0; i < *n; i++ {
		ts = append(ts, once(args[0]))
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i] < ts[j] })
	fmt.Printf("%-42s median %6.2f ms  min %6.2f ms  max %6.2f ms  (%d runs)\n", *label, ms(median(ts)), ms(ts[0]), ms(ts[len(ts)-1]), len(ts))
}

// median of ts (sorted in place).
func median(ts []time.Duration) time.Duration {
	sort.Slice(ts, func(i, j int) bool { return ts[i] < ts[j] })
	if len(ts)%2 == 0 {
		return (ts[len(ts)/2-1] + ts[len(ts)/2]) / 2
	}
	return ts[len(ts)/2]
}

// run runs cmd to completion, on a PTY (output drained) when tty is set.
func run(cmd *exec.Cmd, tty bool) error {
	if !tty {
		return cmd.Run()
	}
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 50, Cols: 160})
	if err != nil {
		return err
	}
	defer f.Close()
	done := make(chan struct{})
	go func() { io.Copy(io.Discard, f); close(done) }()
	err = cmd.Wait()
	f.Close()
	<-done
	return err
}
