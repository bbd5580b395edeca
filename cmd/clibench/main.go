// Command clibench times whole processes: it runs a command N times and
// prints the median, min and max wall time. The timing is taken around
// fork/exec/wait in Go, so the measuring shell adds nothing.
//
//	clibench -n 20 -label "tools list" -- openclaw tools list --json
//	clibench -tty -- openclaw tools list    # stdout and stderr on a PTY
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
	flag.Parse()
	args := flag.Args()
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: clibench [-n N] [-label L] -- command [args...]")
		os.Exit(2)
	}
	if *label == "" {
		*label = fmt.Sprint(args)
	}
	ts := make([]time.Duration, 0, *n)
	for i := 0; i < *n; i++ {
		cmd := exec.Command(args[0], args[1:]...)
		t0 := time.Now()
		if err := run(cmd, *tty); err != nil {
			fmt.Fprintf(os.Stderr, "clibench: %s: %v\n", *label, err)
			os.Exit(1)
		}
		ts = append(ts, time.Since(t0))
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i] < ts[j] })
	med := ts[len(ts)/2]
	if len(ts)%2 == 0 {
		med = (ts[len(ts)/2-1] + ts[len(ts)/2]) / 2
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	fmt.Printf("%-42s median %6.2f ms  min %6.2f ms  max %6.2f ms  (%d runs)\n", *label, ms(med), ms(ts[0]), ms(ts[len(ts)-1]), len(ts))
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
