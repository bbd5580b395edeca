// Command cron-libcompare measures Go cron libraries against the
// original's next-run table (testdata/cron/nextrun.json): for each case,
// the three successive runs each library computes in the case's zone from
// the case's instant, compared with the original's. It is a separate
// module so the libraries it measures stay out of openclaw's go.mod.
//
//	cd scripts/cron-libcompare && go run . [../../testdata/cron/nextrun.json]
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/adhocore/gronx"
	"github.com/robfig/cron/v3"
)

type tcase struct {
	Expr string  `json:"expr"`
	TZ   string  `json:"tz"`
	From int64   `json:"from"`
	Runs []int64 `json:"runs"`
}

func main() {
	path := "../../testdata/cron/nextrun.json"
	if len(os.Args) > 1 {
		path = os.Args[1]
	}
	b, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var tab struct{ Cases []tcase }
	if err := json.Unmarshal(b, &tab); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	robfig := cron.NewParser(cron.SecondOptional | cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)
	libs := []struct {
		name string
		next func(expr string, t time.Time) (time.Time, error)
	}{
		{"adhocore/gronx v1.20.4", func(expr string, t time.Time) (time.Time, error) { return gronx.NextTickAfter(expr, t, false) }},
		{"robfig/cron/v3 v3.0.1", func(expr string, t time.Time) (time.Time, error) {
			s, err := robfig.Parse(expr)
			if err != nil {
				return time.Time{}, err
			}
			n := s.Next(t)
			if n.IsZero() {
				return n, fmt.Errorf("no next run")
			}
			return n, nil
		}},
	}
	for _, lib := range libs {
		same, differ, failed := 0, 0, 0
		byExpr := map[string]int{}
		start := time.Now()
		for _, c := range tab.Cases {
			loc, err := time.LoadLocation(c.TZ)
			if err != nil {
				panic(err)
			}
			t := time.UnixMilli(c.From).In(loc)
			var got []int64
			var ferr error
			for len(got) < len(c.Runs) {
				n, err := lib.next(c.Expr, t)
				if err != nil {
					ferr = err
					break
				}
				got = append(got, n.UnixMilli())
				t = n
			}
			ok := ferr == nil && len(got) == len(c.Runs)
			for i := range got {
				ok = ok && got[i] == c.Runs[i]
			}
			switch {
			case ok:
				same++
			case ferr != nil:
				failed++
				byExpr[c.Expr]++
			default:
				differ++
				byExpr[c.Expr]++
			}
		}
		fmt.Printf("%s: %d of %d cases equal, %d differ, %d fail (%.2f s)\n", lib.name, same, len(tab.Cases), differ, failed, time.Since(start).Seconds())
		var exprs []string
		for e := range byExpr {
			exprs = append(exprs, e)
		}
		sort.Slice(exprs, func(i, j int) bool { return byExpr[exprs[i]] > byExpr[exprs[j]] })
		for _, e := range exprs {
			fmt.Printf("  %4d  %q\n", byExpr[e], e)
		}
	}
}
