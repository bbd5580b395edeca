package tools

import (
	"context"
	"encoding/json"
	"time"
)

// JobWaiter is implemented by a Jobs that can block until a job ends (the
// gateway's runner does); WaitJob falls back to polling Get otherwise.
type JobWaiter interface {
	Wait(ctx context.Context, id string) (JobInfo, error)
}

// WaitJob blocks until the job has ended or ctx ends.
func WaitJob(ctx context.Context, jobs Jobs, id string) (JobInfo, error) {
	if w, ok := jobs.(JobWaiter); ok {
		return w.Wait(ctx, id)
	}
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		info, ok := jobs.Get(id)
		if !ok {
			return JobInfo{}, Errorf(CodeNotFound, "task not found: %s", id)
		}
		if info.Status != JobRunning {
			return info, nil
		}
		select {
		case <-ctx.Done():
			return JobInfo{}, ctx.Err()
		case <-t.C:
		}
	}
}

// AcceptedJob is the first answer of an action that runs as a job, in the
// shape of the original's agent method: {"runId","status":"accepted",
// "acceptedAt"} plus "taskId" (the same id) for tasks.get/tasks.cancel.
type AcceptedJob struct {
	RunID      string `json:"runId"`
	TaskID     string `json:"taskId"`
	Status     string `json:"status"`
	AcceptedAt int64  `json:"acceptedAt"`
}

// DeferJob starts spec and returns the Deferred result that answers
// "accepted" with its run id at once and the job's result (or error) as the
// final answer on the same request. The job runs under the gateway's
// lifetime: a caller that disconnects loses the final answer, not the work,
// and finds the result with tasks.get.
func DeferJob(jobs Jobs, spec JobSpec) (*Deferred, error) {
	info, err := jobs.Start(spec)
	if err != nil {
		return nil, err
	}
	return &Deferred{
		Accepted: AcceptedJob{RunID: info.ID, TaskID: info.ID, Status: "accepted", AcceptedAt: info.StartedAt.UnixMilli()},
		Final: func(ctx context.Context) (any, error) {
			end, err := WaitJob(ctx, jobs, info.ID)
			if err != nil {
				return nil, err
			}
			if end.Error != nil {
				return nil, end.Error
			}
			if end.Result == nil {
				return json.RawMessage("null"), nil
			}
			return end.Result, nil
		},
	}, nil
}
