package sessions

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/openclaw-go/openclaw/tools"
)

// The family's tables (migration family "sessions"). A session is one
// row: its key, the columns lists filter and sort on, and the rest of the
// original's SessionEntry as JSON. A transcript is rows of
// sessions_messages, only ever inserted: each Append is one transaction,
// so once it returns the messages survive a kill -9 of the gateway.
var migrations = []tools.Migration{
	{Version: 1, Name: "sessions and transcripts", Up: tools.ExecMigration(
		`CREATE TABLE sessions_entries (
			key           TEXT PRIMARY KEY,
			agent_id      TEXT NOT NULL,
			session_id    TEXT NOT NULL UNIQUE,
			kind          TEXT NOT NULL,
			depth         INTEGER NOT NULL,
			label         TEXT NOT NULL DEFAULT '',
			display_name  TEXT NOT NULL DEFAULT '',
			spawned_by    TEXT NOT NULL DEFAULT '',
			updated_at_ms INTEGER NOT NULL,
			entry         TEXT NOT NULL
		) STRICT`,
		`CREATE INDEX sessions_entries_updated ON sessions_entries(updated_at_ms DESC, key)`,
		`CREATE INDEX sessions_entries_agent ON sessions_entries(agent_id, updated_at_ms DESC)`,
		`CREATE TABLE sessions_messages (
			seq         INTEGER PRIMARY KEY AUTOINCREMENT,
			session_key TEXT NOT NULL,
			role        TEXT NOT NULL,
			ts          INTEGER NOT NULL,
			message     TEXT NOT NULL
		) STRICT`,
		`CREATE INDEX sessions_messages_key ON sessions_messages(session_key, seq)`,
	)},
}

// Key is the sessions service's typed handle: the agent runtime (and any
// family that records turns) Requires "sessions" and reaches it with
// Key.From.
var Key = tools.NewServiceKey[*Service]("sessions")

func init() {
	spec := Key.Spec(newService)
	spec.Migrations = migrations
	tools.RegisterService(spec)
}

// dbTimeout bounds one store call.
const dbTimeout = 10 * time.Second

// Entry is a session row: the original's SessionEntry fields this port
// fills (the rest of a stored entry is kept as given).
type Entry struct {
	Key              string `json:"key"`
	SessionID        string `json:"sessionId"`
	UpdatedAt        int64  `json:"updatedAt"`
	SessionStartedAt int64  `json:"sessionStartedAt,omitempty"`
	Label            string `json:"label,omitempty"`
	DisplayName      string `json:"displayName,omitempty"`
	SpawnedBy        string `json:"spawnedBy,omitempty"`
	ParentSessionKey string `json:"parentSessionKey,omitempty"`
	Channel          string `json:"channel,omitempty"`
	LastChannel      string `json:"lastChannel,omitempty"`
	LastTo           string `json:"lastTo,omitempty"`
	LastAccountID    string `json:"lastAccountId,omitempty"`
	LastThreadID     string `json:"lastThreadId,omitempty"`
	ChatType         string `json:"chatType,omitempty"`
	Model            string `json:"model,omitempty"`
	ModelProvider    string `json:"modelProvider,omitempty"`
	ModelOverride    string `json:"modelOverride,omitempty"`
	ThinkingLevel    string `json:"thinkingLevel,omitempty"`
	InputTokens      int64  `json:"inputTokens,omitempty"`
	OutputTokens     int64  `json:"outputTokens,omitempty"`
	TotalTokens      int64  `json:"totalTokens,omitempty"`
	Status           string `json:"status,omitempty"`
	StartedAt        int64  `json:"startedAt,omitempty"`
	EndedAt          int64  `json:"endedAt,omitempty"`
	RuntimeMs        int64  `json:"runtimeMs,omitempty"`
	AbortedLastRun   bool   `json:"abortedLastRun,omitempty"`
}

// Message is one transcript message as the original stores it:
// {role:"user"|"assistant"|"toolResult", content:[blocks], timestamp, …}.
// Assistant messages carry their tool calls as content blocks
// {type:"toolCall", id, name, arguments}; tool results name them with
// toolCallId and toolName.
type Message struct {
	Role       string          `json:"role"`
	Content    []ContentBlock  `json:"content"`
	Timestamp  int64           `json:"timestamp"`
	ToolCallID string          `json:"toolCallId,omitempty"`
	ToolName   string          `json:"toolName,omitempty"`
	IsError    bool            `json:"isError,omitempty"`
	StopReason string          `json:"stopReason,omitempty"`
	Provider   string          `json:"provider,omitempty"`
	Model      string          `json:"model,omitempty"`
	Details    json.RawMessage `json:"details,omitempty"`
}

// ContentBlock is a text, image or toolCall block of a message.
type ContentBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	Data      string          `json:"data,omitempty"`
	MimeType  string          `json:"mimeType,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// Text is the message's text blocks joined.
func (m Message) Text() string {
	var parts []string
	for _, b := range m.Content {
		if b.Type == "text" && b.Text != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// Service is the session store over the state database.
type Service struct {
	db  *sql.DB
	now func() int64
}

func newService(env *tools.Env) (*Service, error) {
	st, err := env.NeedStore("sessions")
	if err != nil {
		return nil, err
	}
	return NewStore(st.DB()), nil
}

// NewStore is a session store over db (already migrated with the family's
// migrations; the gateway does that).
func NewStore(db *sql.DB) *Service {
	return &Service{db: db, now: func() int64 { return time.Now().UnixMilli() }}
}

// Migrations are the family's schema steps (for tests that open a store
// themselves).
func Migrations() []tools.Migration { return migrations }

// StatusInterrupted is the status of a session whose run was still going
// when its gateway stopped without ending it (killed, crashed): the next
// start marks it so, as it marks that run's job record interrupted.
const StatusInterrupted = "interrupted"

// Start marks the sessions a previous gateway left running as
// interrupted: no run of this process exists yet, so a session still
// "running" lost its run (kill -9, a crash) and would otherwise refuse
// delete and reset forever while chat.abort finds nothing to abort. The
// store holds no goroutines.
func (s *Service) Start(ctx context.Context) error {
	_, err := s.RecoverInterrupted(ctx)
	return err
}

func (s *Service) Stop(context.Context) error { return nil }

// RecoverInterrupted marks every session whose status is running as
// interrupted (abortedLastRun, endedAt now) in one transaction and returns
// their keys.
func (s *Service) RecoverInterrupted(ctx context.Context) ([]string, error) {
	var keys []string
	err := s.tx(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT key FROM sessions_entries WHERE json_extract(entry, '$.status') = 'running'`)
		if err != nil {
			return fmt.Errorf("sessions: find interrupted runs: %w", err)
		}
		for rows.Next() {
			var k string
			if err := rows.Scan(&k); err != nil {
				rows.Close()
				return fmt.Errorf("sessions: find interrupted runs: %w", err)
			}
			keys = append(keys, k)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("sessions: find interrupted runs: %w", err)
		}
		now := s.now()
		for _, k := range keys {
			e, err := getEntry(ctx, tx, `key = ?`, k)
			if err != nil {
				return err
			}
			e.Status, e.AbortedLastRun, e.EndedAt = StatusInterrupted, true, now
			if e.StartedAt > 0 && now > e.StartedAt {
				e.RuntimeMs = now - e.StartedAt
			}
			e.UpdatedAt = max(now, e.UpdatedAt)
			if err := putEntry(ctx, tx, e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return keys, nil
}

func bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, dbTimeout)
}

// ErrNotFound is returned for an unknown session.
var ErrNotFound = errors.New("session not found")

// Get returns the session stored under key.
func (s *Service) Get(ctx context.Context, key string) (*Entry, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	return getEntry(ctx, s.db, `key = ?`, key)
}

// BySessionID resolves a sessionId to its session.
func (s *Service) BySessionID(ctx context.Context, id string) (*Entry, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	return getEntry(ctx, s.db, `session_id = ?`, id)
}

type rowQueryer interface {
	QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row
}

func getEntry(ctx context.Context, q rowQueryer, where string, arg any) (*Entry, error) {
	var text string
	err := q.QueryRowContext(ctx, `SELECT entry FROM sessions_entries WHERE `+where, arg).Scan(&text)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("sessions: read %v: %w", arg, err)
	}
	var e Entry
	if err := json.Unmarshal([]byte(text), &e); err != nil {
		return nil, fmt.Errorf("sessions: decode %v: %w", arg, err)
	}
	return &e, nil
}

func putEntry(ctx context.Context, tx *sql.Tx, e *Entry) error {
	b, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("sessions: encode %s: %w", e.Key, err)
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO sessions_entries(key, agent_id, session_id, kind, depth, label, display_name, spawned_by, updated_at_ms, entry)
		VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(key) DO UPDATE SET label = excluded.label, display_name = excluded.display_name, spawned_by = excluded.spawned_by,
			updated_at_ms = excluded.updated_at_ms, entry = excluded.entry`,
		e.Key, AgentOf(e.Key), e.SessionID, storedKind(e.Key), SpawnDepth(e.Key), e.Label, e.DisplayName, e.SpawnedBy, e.UpdatedAt, string(b))
	if err != nil {
		return fmt.Errorf("sessions: store %s: %w", e.Key, err)
	}
	return nil
}

func (s *Service) tx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	ctx, cancel := bounded(ctx)
	defer cancel()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sessions: %w", err)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sessions: commit: %w", err)
	}
	return nil
}

// Ensure returns the session under key, creating it (a new sessionId)
// when there is none; init, when set, fills a new entry's fields.
func (s *Service) Ensure(ctx context.Context, key string, init func(e *Entry)) (*Entry, error) {
	if key == "" {
		return nil, errors.New("sessions: empty session key")
	}
	var out *Entry
	err := s.tx(ctx, func(tx *sql.Tx) error {
		e, err := getEntry(ctx, tx, `key = ?`, key)
		if err == nil {
			out = e
			return nil
		}
		if !errors.Is(err, ErrNotFound) {
			return err
		}
		now := s.now()
		e = &Entry{Key: key, SessionID: uuid.NewString(), UpdatedAt: now, SessionStartedAt: now}
		if init != nil {
			init(e)
		}
		e.Key = key
		out = e
		return putEntry(ctx, tx, e)
	})
	return out, err
}

// Update changes a stored session in one transaction (fn edits it;
// updatedAt moves to now).
func (s *Service) Update(ctx context.Context, key string, fn func(e *Entry)) (*Entry, error) {
	var out *Entry
	err := s.tx(ctx, func(tx *sql.Tx) error {
		e, err := getEntry(ctx, tx, `key = ?`, key)
		if err != nil {
			return err
		}
		fn(e)
		e.Key = key
		e.UpdatedAt = max(s.now(), e.UpdatedAt)
		out = e
		return putEntry(ctx, tx, e)
	})
	return out, err
}

// Put stores entries as given (one transaction): imports and tests.
func (s *Service) Put(ctx context.Context, entries ...*Entry) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		for _, e := range entries {
			if e.SessionID == "" {
				e.SessionID = uuid.NewString()
			}
			if err := putEntry(ctx, tx, e); err != nil {
				return err
			}
		}
		return nil
	})
}

// Append adds messages to key's transcript (creating the session when
// new) and moves its updatedAt, in one transaction: when it returns nil
// the messages are on disk.
func (s *Service) Append(ctx context.Context, key string, msgs ...Message) error {
	if key == "" {
		return errors.New("sessions: empty session key")
	}
	// One transaction (one commit) creates the session when new and adds
	// the messages.
	return s.tx(ctx, func(tx *sql.Tx) error {
		now := s.now()
		if _, err := getEntry(ctx, tx, `key = ?`, key); errors.Is(err, ErrNotFound) {
			if err := putEntry(ctx, tx, &Entry{Key: key, SessionID: uuid.NewString(), UpdatedAt: now, SessionStartedAt: now}); err != nil {
				return err
			}
		} else if err != nil {
			return err
		}
		for _, m := range msgs {
			if m.Timestamp == 0 {
				m.Timestamp = now
			}
			if m.Content == nil {
				m.Content = []ContentBlock{}
			}
			b, err := json.Marshal(m)
			if err != nil {
				return fmt.Errorf("sessions: encode message: %w", err)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO sessions_messages(session_key, role, ts, message) VALUES(?, ?, ?, ?)`,
				key, m.Role, m.Timestamp, string(b)); err != nil {
				return fmt.Errorf("sessions: append to %s: %w", key, err)
			}
		}
		_, err := tx.ExecContext(ctx, `UPDATE sessions_entries SET updated_at_ms = max(updated_at_ms, ?),
			entry = json_set(entry, '$.updatedAt', max(updated_at_ms, ?)) WHERE key = ?`, now, now, key)
		if err != nil {
			return fmt.Errorf("sessions: touch %s: %w", key, err)
		}
		return nil
	})
}

// History is the last limit messages of key (all when limit <= 0), oldest
// first; tool results are dropped unless includeTools.
func (s *Service) History(ctx context.Context, key string, limit int, includeTools bool) ([]Message, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	q := `SELECT message FROM sessions_messages WHERE session_key = ?`
	if !includeTools {
		q += ` AND role != 'toolResult'`
	}
	q += ` ORDER BY seq DESC`
	args := []any{key}
	if limit > 0 {
		q += ` LIMIT ?`
		args = append(args, limit)
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("sessions: history of %s: %w", key, err)
	}
	defer rows.Close()
	var out []Message
	for rows.Next() {
		var text string
		if err := rows.Scan(&text); err != nil {
			return nil, fmt.Errorf("sessions: history of %s: %w", key, err)
		}
		var m Message
		if err := json.Unmarshal([]byte(text), &m); err != nil {
			return nil, fmt.Errorf("sessions: history of %s: %w", key, err)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sessions: history of %s: %w", key, err)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}

// Filter selects sessions (newest updatedAt first).
type Filter struct {
	AgentID       string
	Label         string
	Search        string
	SpawnedBy     string
	ActiveMinutes int
	// Kinds keeps only these sessions_list kinds (main, group, cron, hook,
	// node, other).
	Kinds []string
	// Reserved includes the reserved keys global and unknown.
	IncludeGlobal, IncludeUnknown bool
	ExcludeSubagents, ExcludeCron bool
	Limit                         int
	Offset                        int
}

// storedKind is the kind column: Kind, with the reserved keys apart.
func storedKind(key string) string {
	if key == "global" || key == "unknown" {
		return key
	}
	return Kind(key)
}

// List returns one page of the sessions matching f and how many match.
func (s *Service) List(ctx context.Context, f Filter) ([]*Entry, int, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	var where []string
	var args []any
	if f.AgentID != "" {
		where, args = append(where, `agent_id = ?`), append(args, NormalizeAgentID(f.AgentID))
	}
	if f.Label != "" {
		where, args = append(where, `label = ?`), append(args, f.Label)
	}
	if f.SpawnedBy != "" {
		where, args = append(where, `spawned_by = ?`), append(args, f.SpawnedBy)
	}
	if f.Search != "" {
		like := "%" + strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(strings.ToLower(f.Search)) + "%"
		where = append(where, `(lower(key) LIKE ? ESCAPE '\' OR lower(label) LIKE ? ESCAPE '\' OR lower(display_name) LIKE ? ESCAPE '\')`)
		args = append(args, like, like, like)
	}
	if len(f.Kinds) > 0 {
		where = append(where, `kind IN (`+strings.TrimSuffix(strings.Repeat("?,", len(f.Kinds)), ",")+`)`)
		for _, k := range f.Kinds {
			args = append(args, k)
		}
	}
	if !f.IncludeGlobal {
		where = append(where, `kind != 'global'`)
	}
	if !f.IncludeUnknown {
		where = append(where, `kind != 'unknown'`)
	}
	if f.ExcludeSubagents {
		where = append(where, `depth = 0`)
	}
	if f.ExcludeCron {
		where = append(where, `kind != 'cron'`)
	}
	if f.ActiveMinutes > 0 {
		where, args = append(where, `updated_at_ms >= ?`), append(args, s.now()-int64(f.ActiveMinutes)*60_000)
	}
	cond := ""
	if len(where) > 0 {
		cond = ` WHERE ` + strings.Join(where, " AND ")
	}
	var total int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM sessions_entries`+cond, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("sessions: count: %w", err)
	}
	q := `SELECT entry FROM sessions_entries` + cond + ` ORDER BY updated_at_ms DESC, key`
	if f.Limit > 0 {
		q += ` LIMIT ? OFFSET ?`
		args = append(args, f.Limit, max(f.Offset, 0))
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, 0, fmt.Errorf("sessions: list: %w", err)
	}
	defer rows.Close()
	var out []*Entry
	for rows.Next() {
		var text string
		if err := rows.Scan(&text); err != nil {
			return nil, 0, fmt.Errorf("sessions: list: %w", err)
		}
		e := &Entry{}
		if err := json.Unmarshal([]byte(text), e); err != nil {
			return nil, 0, fmt.Errorf("sessions: list: %w", err)
		}
		out = append(out, e)
	}
	return out, total, rows.Err()
}

// Delete removes a session and its transcript in one transaction. It
// reports whether there was one.
func (s *Service) Delete(ctx context.Context, key string) (bool, error) {
	var n int64
	err := s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM sessions_entries WHERE key = ?`, key)
		if err != nil {
			return fmt.Errorf("sessions: delete %s: %w", key, err)
		}
		n, _ = res.RowsAffected()
		if _, err := tx.ExecContext(ctx, `DELETE FROM sessions_messages WHERE session_key = ?`, key); err != nil {
			return fmt.Errorf("sessions: delete transcript of %s: %w", key, err)
		}
		return nil
	})
	return n > 0, err
}

// ArchivedKey is where Reset moves a session's old transcript: its rows
// stay (append-only), under a key no list shows.
func ArchivedKey(sessionID string) string { return "archived:" + sessionID }

// Reset starts key over: a new sessionId, token counts and run state
// cleared, and the old transcript moved under ArchivedKey(old sessionId),
// in one transaction. Label, model override and thinking level stay, as
// the original's reset keeps them.
func (s *Service) Reset(ctx context.Context, key string) (*Entry, error) {
	var out *Entry
	err := s.tx(ctx, func(tx *sql.Tx) error {
		e, err := getEntry(ctx, tx, `key = ?`, key)
		if err != nil {
			return err
		}
		old := e.SessionID
		now := s.now()
		*e = Entry{Key: key, SessionID: uuid.NewString(), UpdatedAt: max(now, e.UpdatedAt), SessionStartedAt: now,
			Label: e.Label, DisplayName: e.DisplayName, SpawnedBy: e.SpawnedBy, ParentSessionKey: e.ParentSessionKey,
			Channel: e.Channel, LastChannel: e.LastChannel, LastTo: e.LastTo, LastAccountID: e.LastAccountID,
			LastThreadID: e.LastThreadID, ChatType: e.ChatType, ModelOverride: e.ModelOverride,
			ThinkingLevel: e.ThinkingLevel}
		if _, err := tx.ExecContext(ctx, `UPDATE sessions_messages SET session_key = ? WHERE session_key = ?`, ArchivedKey(old), key); err != nil {
			return fmt.Errorf("sessions: archive transcript of %s: %w", key, err)
		}
		out = e
		return putEntry(ctx, tx, e)
	})
	return out, err
}

// CountMessages is how many messages key's transcript holds.
func (s *Service) CountMessages(ctx context.Context, key string) (int, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM sessions_messages WHERE session_key = ?`, key).Scan(&n); err != nil {
		return 0, fmt.Errorf("sessions: count messages of %s: %w", key, err)
	}
	return n, nil
}
