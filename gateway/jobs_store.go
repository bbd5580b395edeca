package gateway

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/openclaw-go/openclaw/store"
	"github.com/openclaw-go/openclaw/tools"
)

// jobsFamily is the job records' migration family in the state database.
const jobsFamily = "jobs"

// maxStoredResultBytes: a larger result is kept in memory for this run's
// tasks.get but not written to the database (after a restart the record
// shows how the job ended, without its result).
const maxStoredResultBytes = 1 << 20

// maxStoredJobs is how many job records the database keeps (newest first);
// older ones are pruned when the gateway opens its state.
const maxStoredJobs = 1000

// gatewayFamilies are the gateway's own migration families.
func gatewayFamilies() []store.Family {
	return []store.Family{{Name: jobsFamily, Migrations: []store.Migration{
		{Version: 1, Name: "job records", Up: tools.ExecMigration(
			// One row per background job: what ran, for whom, how it ended.
			// result and error are JSON (NULL while running or absent).
			`CREATE TABLE jobs (
				id            TEXT PRIMARY KEY,
				kind          TEXT NOT NULL,
				owner         TEXT NOT NULL DEFAULT '',
				status        TEXT NOT NULL,
				started_at_ms INTEGER NOT NULL,
				ended_at_ms   INTEGER NOT NULL DEFAULT 0,
				result        TEXT,
				error         TEXT
			) STRICT`,
			`CREATE INDEX jobs_started ON jobs(started_at_ms)`,
		)},
	}}}
}

// jobRepo is the job records' typed repository.
type jobRepo struct{ db *sql.DB }

// dbTimeout bounds one job record write: a stuck database must not hold a
// job's start or end forever.
const dbTimeout = 10 * time.Second

func (r jobRepo) insert(info tools.JobInfo) error {
	ctx, cancel := context.WithTimeout(context.Background(), dbTimeout)
	defer cancel()
	_, err := r.db.ExecContext(ctx, `INSERT INTO jobs(id, kind, owner, status, started_at_ms) VALUES(?, ?, ?, ?, ?)`,
		info.ID, info.Kind, info.Owner, info.Status, info.StartedAt.UnixMilli())
	if err != nil {
		return fmt.Errorf("record task %s: %w", info.ID, err)
	}
	return nil
}

func (r jobRepo) finish(info tools.JobInfo) error {
	ctx, cancel := context.WithTimeout(context.Background(), dbTimeout)
	defer cancel()
	var res, errJSON any
	if len(info.Result) > 0 && len(info.Result) <= maxStoredResultBytes {
		res = string(info.Result)
	}
	if info.Error != nil {
		b, err := json.Marshal(info.Error)
		if err != nil {
			return fmt.Errorf("record task %s: %w", info.ID, err)
		}
		errJSON = string(b)
	}
	_, err := r.db.ExecContext(ctx, `UPDATE jobs SET status = ?, ended_at_ms = ?, result = ?, error = ? WHERE id = ?`,
		info.Status, info.EndedAt.UnixMilli(), res, errJSON, info.ID)
	if err != nil {
		return fmt.Errorf("record task %s: %w", info.ID, err)
	}
	return nil
}

// interruptedError is what a job shows that was running when the gateway
// stopped without finishing it.
func interruptedError() *tools.Error {
	return tools.Errorf(tools.CodeInterrupted, "interrupted: the gateway stopped while it ran")
}

// recover marks the records a previous gateway left running as interrupted
// (it was killed, or stopped before they ended), prunes old records and
// returns the newest limit, oldest first.
func (r jobRepo) recover(ctx context.Context, now time.Time, limit int) ([]tools.JobInfo, error) {
	e, _ := json.Marshal(interruptedError())
	tx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("task records: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `UPDATE jobs SET status = ?, ended_at_ms = ?, error = ? WHERE status = ?`,
		tools.JobInterrupted, now.UnixMilli(), string(e), tools.JobRunning); err != nil {
		return nil, fmt.Errorf("task records: mark interrupted: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM jobs WHERE id NOT IN
		(SELECT id FROM jobs ORDER BY started_at_ms DESC, id DESC LIMIT ?)`, maxStoredJobs); err != nil {
		return nil, fmt.Errorf("task records: prune: %w", err)
	}
	rows, err := tx.QueryContext(ctx, `SELECT id, kind, owner, status, started_at_ms, ended_at_ms, result, error
		FROM jobs ORDER BY started_at_ms DESC, id DESC LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("task records: %w", err)
	}
	var out []tools.JobInfo
	for rows.Next() {
		var (
			info         tools.JobInfo
			start, end   int64
			res, errJSON sql.NullString
		)
		if err := rows.Scan(&info.ID, &info.Kind, &info.Owner, &info.Status, &start, &end, &res, &errJSON); err != nil {
			rows.Close()
			return nil, fmt.Errorf("task records: %w", err)
		}
		info.StartedAt = time.UnixMilli(start).UTC()
		if end > 0 {
			info.EndedAt = time.UnixMilli(end).UTC()
		}
		if res.Valid {
			info.Result = json.RawMessage(res.String)
		}
		if errJSON.Valid {
			info.Error = &tools.Error{}
			if err := json.Unmarshal([]byte(errJSON.String), info.Error); err != nil {
				info.Error = tools.Errorf(tools.CodeFailed, "unreadable error record")
			}
		}
		out = append(out, info)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("task records: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("task records: %w", err)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}

// restore makes this runner persist through repo and shows the previous
// gateway's records (what ran, what was interrupted) as finished jobs.
func (r *jobRunner) restore(ctx context.Context, repo jobRepo) error {
	prev, err := repo.recover(ctx, time.Now().UTC(), maxFinishedJobs)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.repo = &repo
	for _, info := range prev {
		if _, dup := r.jobs[info.ID]; dup {
			continue
		}
		j := &job{info: info, cancel: func() {}, done: make(chan struct{})}
		close(j.done)
		r.jobs[info.ID] = j
		r.finished = append(r.finished, info.ID)
		r.retained += len(info.Result)
	}
	return nil
}
