// Command clibench times whole processes: it runs a command N times and
// prints the median, min and max wall time. The timing is taken around
// fork/exec/wait in Go, so the measuring shell adds nothing.
//
//	clibench -n 20 -label "tools list" -- openclaw tools list --json
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"time"
)

func main() {
	n := flag.Int("n", 20, "runs")
	label := flag.String("label", "", "label to print (default: the command)")
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
		if err := cmd.Run(); err != nil {
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
