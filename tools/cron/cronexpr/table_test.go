package cronexpr

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// nextRunTable is testdata/cron/nextrun.json: next-run times computed by
// the original OpenClaw's own scheduler code (scripts/cron-nextrun-table.sh).
type nextRunTable struct {
	Source string `json:"source"`
	Cases  []struct {
		Expr string  `json:"expr"`
		TZ   string  `json:"tz"`
		From int64   `json:"from"`
		Runs []int64 `json:"runs"`
	} `json:"cases"`
	Staggers []struct {
		Expr      string `json:"expr"`
		StaggerMs int64  `json:"staggerMs"`
	} `json:"staggers"`
	Ats []struct {
		Input string `json:"input"`
		Ms    *int64 `json:"ms"`
	} `json:"ats"`
}

func loadTable(t testing.TB) nextRunTable {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "cron", "nextrun.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tab nextRunTable
	if err := json.Unmarshal(b, &tab); err != nil {
		t.Fatal(err)
	}
	if len(tab.Cases) < 1000 {
		t.Fatalf("only %d cases in the table", len(tab.Cases))
	}
	return tab
}

// Every case of the original's table: the same three successive runs, in
// the same zone, from the same instant (DST gaps skipped, repeated hours
// run once, L, #, W, +, 6 and 7 fields, the day-of-month/day-of-week OR).
func TestNextRunsEqualTheOriginals(t *testing.T) {
	tab := loadTable(t)
	bad := 0
	for _, c := range tab.Cases {
		s, err := Compile(c.Expr, c.TZ)
		if err != nil {
			t.Fatalf("%q in %s: %v", c.Expr, c.TZ, err)
		}
		got := s.NextN(c.From, 3)
		same := len(got) == len(c.Runs)
		for i := range got {
			same = same && got[i] == c.Runs[i]
		}
		if !same {
			bad++
			if bad <= 20 {
				t.Errorf("%q in %s from %s: got %v, want %v", c.Expr, c.TZ, fmtMs(c.From, c.TZ), fmtAll(got, c.TZ), fmtAll(c.Runs, c.TZ))
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d cases differ from the original", bad, len(tab.Cases))
	}
}

func fmtMs(ms int64, tz string) string {
	loc, _ := time.LoadLocation(tz)
	return time.UnixMilli(ms).In(loc).Format("2006-01-02T15:04:05.000-07:00")
}

func fmtAll(ms []int64, tz string) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = fmtMs(m, tz)
	}
	return out
}
