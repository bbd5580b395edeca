package exectool

import (
	"context"

	"github.com/openclaw-go/openclaw/tools"
)

// Every command the gateway starts is a job on the gateway's job runner
// (env.Jobs): one lifecycle for all background work. Cancelling its task
// (`openclaw tasks cancel <taskId>`, `process kill`) or stopping the
// gateway ends the command's whole process group; the session (stdin,
// output, polls) stays with the exec service.

// supervise starts the job that owns s's process: it ends when the process
// does, and kills the group when the job is cancelled.
func supervise(jobs tools.Jobs, s *session, ended func()) error {
	info, err := jobs.Start(tools.JobSpec{Kind: "exec", Owner: s.agent + ":" + s.id,
		Run: func(ctx context.Context, _ tools.Sink) (any, error) {
			select {
			case <-s.p.done:
			case <-ctx.Done():
				s.p.kill(context.Background(), "cancel")
			}
			ended()
			st := s.p.state()
			summary := map[string]any{"sessionId": s.id, "status": statusOf(st), "pid": s.p.pid,
				"durationMs": st.duration.Milliseconds(), "exitCode": st.exitCode, "signal": st.signal}
			if st.killedBy != "" {
				return nil, tools.Errorf(tools.CodeInterrupted, "exec session %s: process group killed (%s)", s.id, st.killedBy).
					WithDetails(summary)
			}
			return summary, nil
		}})
	if err != nil {
		return err
	}
	s.taskID = info.ID
	return nil
}

// end stops s through its job (why is recorded for the result) and waits
// until the group is gone or ctx ends.
func (r *registry) end(ctx context.Context, s *session, why string) {
	s.p.markKilled(why)
	if err := r.jobs.Cancel(s.taskID); err != nil {
		s.p.kill(ctx, why) // the runner forgot the job: end the group directly
	}
	select {
	case <-s.p.done:
	case <-ctx.Done():
	}
}
