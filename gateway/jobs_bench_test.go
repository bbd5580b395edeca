package gateway

import (
	"context"
	"testing"

	"github.com/openclaw-go/openclaw/store"
	"github.com/openclaw-go/openclaw/tools"
)

// BenchmarkJobRecorded is one background job start-to-end with its record
// written to the state database (insert at start, update at the end, each
// a durable commit), against BenchmarkJobInMemory without a database.
func BenchmarkJobRecorded(b *testing.B) {
	st, err := store.Open(context.Background(), b.TempDir(), gatewayFamilies()...)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	r := newJobRunner(func(string, any) error { return nil }, b.Logf)
	if err := r.restore(context.Background(), jobRepo{st.DB()}); err != nil {
		b.Fatal(err)
	}
	benchJobs(b, r)
}

func BenchmarkJobInMemory(b *testing.B) {
	benchJobs(b, newJobRunner(func(string, any) error { return nil }, b.Logf))
}

func benchJobs(b *testing.B, r *jobRunner) {
	defer r.stop(jobStopGrace)
	spec := tools.JobSpec{Kind: "bench", Run: func(context.Context, tools.Sink) (any, error) { return map[string]int{"n": 1}, nil }}
	for b.Loop() {
		info, err := r.Start(spec)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := r.Wait(context.Background(), info.ID); err != nil {
			b.Fatal(err)
		}
	}
}
