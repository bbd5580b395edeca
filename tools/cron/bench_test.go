package cron

import (
	"fmt"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/tools/cron/cronexpr"
)

// benchJobs are 10,000 jobs of the shapes people schedule: cron
// expressions (some staggered, some with L, #, seconds) in a mix of zones,
// every intervals and one-shots.
func benchJobs() []*Job {
	exprs := []string{"0 7 * * *", "*/15 * * * *", "0 * * * *", "30 2 * * *", "0 9 * * 1-5", "0 0 L * *", "0 9 * * 5#2",
		"*/30 * * * * *", "0 22 * * 1-5", "0 12 1 * MON", "15 3 * * 0", "0 */6 * * *"}
	zones := []string{"UTC", "America/New_York", "Europe/Berlin", "Australia/Sydney", "Asia/Kolkata", "America/Los_Angeles"}
	created := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	var jobs []*Job
	for i := range 10_000 {
		j := &Job{ID: fmt.Sprintf("job-%05d", i), Enabled: true, CreatedAtMs: created}
		switch i % 10 {
		case 8:
			j.Schedule = Schedule{Kind: KindEvery, EveryMs: int64(60_000 * (1 + i%90)), AnchorMs: i64(created)}
		case 9:
			j.Schedule = Schedule{Kind: KindAt, At: cronexpr.ISOString(created + int64(i)*3_600_000)}
		default:
			e := exprs[i%len(exprs)]
			j.Schedule = Schedule{Kind: KindCron, Expr: e, TZ: zones[i%len(zones)]}
			if TopOfHour(e) {
				j.Schedule.StaggerMs = i64(DefaultStaggerMs)
			}
		}
		jobs = append(jobs, j)
	}
	return jobs
}

// BenchmarkNextRun10kJobs is the time to compute the next run of 10,000
// jobs (one op = all of them), from an instant just before the US
// spring-forward change, where the DST checks do the most work.
func BenchmarkNextRun10kJobs(b *testing.B) {
	jobs := benchJobs()
	now := time.Date(2026, 3, 8, 6, 30, 0, 0, time.UTC).UnixMilli()
	for _, j := range jobs { // parse once, as the scheduler does
		jobNext(j, now)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, j := range jobs {
			if _, ok := jobNext(j, now); !ok && j.Schedule.Kind != KindAt {
				b.Fatalf("%s: no next run", j.ID)
			}
		}
	}
}
