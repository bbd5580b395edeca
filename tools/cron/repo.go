package cron

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/openclaw-go/openclaw/tools"
)

// The family's tables in the state database (migration family "cron").
// A job is one row holding its JSON (definition and state); every change
// is one transaction. Runs are rows too: inserted as running when a run
// starts and finished in the transaction that stores the job's new state,
// so a gateway killed mid-run leaves a `running` row that the next start
// marks interrupted. System events queued for the main session (by main
// jobs and `wake`) wait in cron_system_events until the sessions family
// consumes them.
var migrations = []tools.Migration{
	{Version: 1, Name: "jobs, runs and system events", Up: tools.ExecMigration(
		`CREATE TABLE cron_jobs (
			id            TEXT PRIMARY KEY,
			job           TEXT NOT NULL,
			updated_at_ms INTEGER NOT NULL
		) STRICT`,
		`CREATE TABLE cron_runs (
			seq           INTEGER PRIMARY KEY AUTOINCREMENT,
			run_id        TEXT NOT NULL UNIQUE,
			job_id        TEXT NOT NULL,
			status        TEXT NOT NULL,
			started_at_ms INTEGER NOT NULL,
			ts            INTEGER NOT NULL,
			entry         TEXT NOT NULL
		) STRICT`,
		`CREATE INDEX cron_runs_job ON cron_runs(job_id, seq)`,
		`CREATE INDEX cron_runs_ts ON cron_runs(ts)`,
		`CREATE TABLE cron_system_events (
			seq            INTEGER PRIMARY KEY AUTOINCREMENT,
			session_key    TEXT NOT NULL,
			agent_id       TEXT NOT NULL,
			text           TEXT NOT NULL,
			context_key    TEXT NOT NULL DEFAULT '',
			wake_mode      TEXT NOT NULL,
			created_at_ms  INTEGER NOT NULL,
			consumed_at_ms INTEGER
		) STRICT`,
		`CREATE INDEX cron_system_events_session ON cron_system_events(session_key, consumed_at_ms, seq)`,
	)},
	// The scopes of whoever created a job (a JSON array), which its agent
	// turns hold; NULL for a job stored before they were recorded, whose
	// turns hold tools.LeastRunScopes.
	{Version: 2, Name: "job creator scopes", Up: tools.ExecMigration(
		`ALTER TABLE cron_jobs ADD COLUMN scopes TEXT`,
	)},
}

// dbTimeout bounds one repository call: a stuck database must not hold
// the scheduler forever.
const dbTimeout = 10 * time.Second

// dbTx is one transaction of the repository.
type dbTx = *sql.Tx

// repo is the typed repository over those tables.
type repo struct{ db *sql.DB }

func bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, dbTimeout)
}

// loadJobs reads every job.
func (r repo) loadJobs(ctx context.Context) ([]*Job, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	rows, err := r.db.QueryContext(ctx, `SELECT id, job, scopes FROM cron_jobs`)
	if err != nil {
		return nil, fmt.Errorf("cron: load jobs: %w", err)
	}
	defer rows.Close()
	var out []*Job
	for rows.Next() {
		var id, text string
		var scopes sql.NullString
		if err := rows.Scan(&id, &text, &scopes); err != nil {
			return nil, fmt.Errorf("cron: load jobs: %w", err)
		}
		var j Job
		if err := json.Unmarshal([]byte(text), &j); err != nil {
			return nil, fmt.Errorf("cron: job %s: %w", id, err)
		}
		if scopes.Valid {
			j.scopes = []string{}
			if err := json.Unmarshal([]byte(scopes.String), &j.scopes); err != nil {
				return nil, fmt.Errorf("cron: job %s scopes: %w", id, err)
			}
		}
		out = append(out, &j)
	}
	return out, rows.Err()
}

// tx runs fn in one transaction.
func (r repo) tx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	ctx, cancel := bounded(ctx)
	defer cancel()
	tx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("cron: %w", err)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("cron: commit: %w", err)
	}
	return nil
}

func putJob(ctx context.Context, tx *sql.Tx, j *Job) error {
	b, err := json.Marshal(j)
	if err != nil {
		return fmt.Errorf("cron: encode job %s: %w", j.ID, err)
	}
	var scopes any // NULL: not recorded
	if j.scopes != nil {
		s, err := json.Marshal(j.scopes)
		if err != nil {
			return fmt.Errorf("cron: encode job %s: %w", j.ID, err)
		}
		scopes = string(s)
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO cron_jobs(id, job, updated_at_ms, scopes) VALUES(?, ?, ?, ?)
		ON CONFLICT(id) DO UPDATE SET job = excluded.job, updated_at_ms = excluded.updated_at_ms, scopes = excluded.scopes`,
		j.ID, string(b), j.UpdatedAtMs, scopes)
	if err != nil {
		return fmt.Errorf("cron: store job %s: %w", j.ID, err)
	}
	return nil
}

func deleteJob(ctx context.Context, tx *sql.Tx, id string) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM cron_jobs WHERE id = ?`, id); err != nil {
		return fmt.Errorf("cron: delete job %s: %w", id, err)
	}
	return nil
}

// saveJobs writes jobs (one transaction).
func (r repo) saveJobs(ctx context.Context, jobs ...*Job) error {
	return r.tx(ctx, func(tx *sql.Tx) error {
		for _, j := range jobs {
			if err := putJob(ctx, tx, j); err != nil {
				return err
			}
		}
		return nil
	})
}

func (r repo) removeJob(ctx context.Context, id string) error {
	return r.tx(ctx, func(tx *sql.Tx) error {
		if err := deleteJob(ctx, tx, id); err != nil {
			return err
		}
		// Still-queued system events of the job go with it (spec §1.8).
		_, err := tx.ExecContext(ctx, `DELETE FROM cron_system_events WHERE context_key = ? AND consumed_at_ms IS NULL`, "cron:"+id)
		return err
	})
}

func insertRun(ctx context.Context, tx *sql.Tx, e RunEntry, status string, started int64) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO cron_runs(run_id, job_id, status, started_at_ms, ts, entry) VALUES(?, ?, ?, ?, ?, ?)`,
		e.RunID, e.JobID, status, started, e.TS, string(b))
	if err != nil {
		return fmt.Errorf("cron: record run %s: %w", e.RunID, err)
	}
	return nil
}

func finishRun(ctx context.Context, tx *sql.Tx, e RunEntry, status string) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, `UPDATE cron_runs SET status = ?, ts = ?, entry = ? WHERE run_id = ?`, status, e.TS, string(b), e.RunID)
	if err != nil {
		return fmt.Errorf("cron: record run %s: %w", e.RunID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return insertRun(ctx, tx, e, status, e.RunAtMs)
	}
	return nil
}

// pruneRuns keeps the newest keep finished runs of a job and none older
// than maxAge.
func pruneRuns(ctx context.Context, tx *sql.Tx, jobID string, keep int, oldest int64) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM cron_runs WHERE job_id = ? AND status != 'running' AND seq NOT IN
		(SELECT seq FROM cron_runs WHERE job_id = ? ORDER BY seq DESC LIMIT ?)`, jobID, jobID, keep); err != nil {
		return fmt.Errorf("cron: prune runs: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM cron_runs WHERE ts < ? AND status != 'running'`, oldest); err != nil {
		return fmt.Errorf("cron: prune runs: %w", err)
	}
	return nil
}

// runFilter selects run entries (cron.runs).
type runFilter struct {
	jobID, runID     string
	statuses         []string
	deliveryStatuses []string
	query            string
	asc              bool
	limit, offset    int
}

// listRuns returns one page of entries and the total matching.
func (r repo) listRuns(ctx context.Context, f runFilter) ([]json.RawMessage, int, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	where, args := "status != 'running'", []any{}
	if f.jobID != "" {
		where += " AND job_id = ?"
		args = append(args, f.jobID)
	}
	if f.runID != "" {
		where += " AND run_id = ?"
		args = append(args, f.runID)
	}
	if len(f.statuses) > 0 {
		where += " AND json_extract(entry, '$.status') IN (" + placeholders(len(f.statuses)) + ")"
		for _, s := range f.statuses {
			args = append(args, s)
		}
	}
	if len(f.deliveryStatuses) > 0 {
		where += " AND coalesce(json_extract(entry, '$.deliveryStatus'), 'not-requested') IN (" + placeholders(len(f.deliveryStatuses)) + ")"
		for _, s := range f.deliveryStatuses {
			args = append(args, s)
		}
	}
	if f.query != "" {
		where += ` AND (instr(lower(coalesce(json_extract(entry, '$.summary'), '')), lower(?)) > 0
			OR instr(lower(coalesce(json_extract(entry, '$.error'), '')), lower(?)) > 0
			OR instr(lower(coalesce(json_extract(entry, '$.jobName'), '')), lower(?)) > 0)`
		args = append(args, f.query, f.query, f.query)
	}
	var total int
	if err := r.db.QueryRowContext(ctx, `SELECT count(*) FROM cron_runs WHERE `+where, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("cron: runs: %w", err)
	}
	order := "DESC"
	if f.asc {
		order = "ASC"
	}
	rows, err := r.db.QueryContext(ctx, `SELECT entry FROM cron_runs WHERE `+where+` ORDER BY ts `+order+`, seq `+order+` LIMIT ? OFFSET ?`,
		append(args, f.limit, f.offset)...)
	if err != nil {
		return nil, 0, fmt.Errorf("cron: runs: %w", err)
	}
	defer rows.Close()
	out := []json.RawMessage{}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, 0, fmt.Errorf("cron: runs: %w", err)
		}
		out = append(out, json.RawMessage(s))
	}
	return out, total, rows.Err()
}

func placeholders(n int) string {
	b := make([]byte, 0, 2*n)
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '?')
	}
	return string(b)
}

// interruptedRuns returns the runs a previous gateway left running.
func (r repo) interruptedRuns(ctx context.Context) ([]RunEntry, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	rows, err := r.db.QueryContext(ctx, `SELECT entry FROM cron_runs WHERE status = 'running' ORDER BY seq`)
	if err != nil {
		return nil, fmt.Errorf("cron: runs: %w", err)
	}
	defer rows.Close()
	var out []RunEntry
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		var e RunEntry
		if err := json.Unmarshal([]byte(s), &e); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// SystemEvent is one queued system event for a session (a main job's text
// or a `wake`), waiting for the session's next turn.
type SystemEvent struct {
	Seq         int64  `json:"seq"`
	SessionKey  string `json:"sessionKey"`
	AgentID     string `json:"agentId"`
	Text        string `json:"text"`
	ContextKey  string `json:"contextKey,omitempty"`
	WakeMode    string `json:"wakeMode"`
	CreatedAtMs int64  `json:"createdAtMs"`
}

// maxQueuedEvents bounds one session's queue: past it the oldest
// unconsumed events are dropped (a session nobody reads must not grow the
// database without bound).
const maxQueuedEvents = 1000

func enqueueEvent(ctx context.Context, tx *sql.Tx, e SystemEvent) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO cron_system_events(session_key, agent_id, text, context_key, wake_mode, created_at_ms)
		VALUES(?, ?, ?, ?, ?, ?)`, e.SessionKey, e.AgentID, e.Text, e.ContextKey, e.WakeMode, e.CreatedAtMs); err != nil {
		return fmt.Errorf("cron: queue system event: %w", err)
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM cron_system_events WHERE session_key = ? AND consumed_at_ms IS NULL AND seq NOT IN
		(SELECT seq FROM cron_system_events WHERE session_key = ? AND consumed_at_ms IS NULL ORDER BY seq DESC LIMIT ?)`,
		e.SessionKey, e.SessionKey, maxQueuedEvents)
	if err != nil {
		return fmt.Errorf("cron: queue system event: %w", err)
	}
	return nil
}

func (r repo) enqueue(ctx context.Context, e SystemEvent) error {
	return r.tx(ctx, func(tx *sql.Tx) error { return enqueueEvent(ctx, tx, e) })
}

// pendingEvents lists a session's unconsumed events, oldest first ("" for
// every session).
func (r repo) pendingEvents(ctx context.Context, sessionKey string) ([]SystemEvent, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	q := `SELECT seq, session_key, agent_id, text, context_key, wake_mode, created_at_ms FROM cron_system_events
		WHERE consumed_at_ms IS NULL AND (? = '' OR session_key = ?) ORDER BY seq`
	rows, err := r.db.QueryContext(ctx, q, sessionKey, sessionKey)
	if err != nil {
		return nil, fmt.Errorf("cron: system events: %w", err)
	}
	defer rows.Close()
	out := []SystemEvent{}
	for rows.Next() {
		var e SystemEvent
		if err := rows.Scan(&e.Seq, &e.SessionKey, &e.AgentID, &e.Text, &e.ContextKey, &e.WakeMode, &e.CreatedAtMs); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// consumeEvents marks a session's events up to seq as consumed.
func (r repo) consumeEvents(ctx context.Context, sessionKey string, upTo int64, now int64) (int, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	res, err := r.db.ExecContext(ctx, `UPDATE cron_system_events SET consumed_at_ms = ? WHERE session_key = ? AND seq <= ? AND consumed_at_ms IS NULL`,
		now, sessionKey, upTo)
	if err != nil {
		return 0, fmt.Errorf("cron: system events: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

var errNoStore = errors.New("cron needs the gateway's state database")
