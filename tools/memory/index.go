package memory

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" driver, FTS5 and trigram built in
)

// schemaVersion changes when the tables or the chunking change; an index of
// another version is rebuilt from the files (it is derived data). The
// embedding cache is kept across rebuilds: it is keyed by chunk content.
const schemaVersion = "5" // 5: meta 'lengths' (chunk lengths for the ranking)

const schemaSQL = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
  path TEXT PRIMARY KEY, ino INTEGER NOT NULL, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
  ctime_ns INTEGER NOT NULL, hash TEXT NOT NULL, racy INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS files_racy ON files(racy) WHERE racy = 1;
CREATE TABLE IF NOT EXISTS chunks (
  id INTEGER PRIMARY KEY, path TEXT NOT NULL, start_line INTEGER NOT NULL,
  end_line INTEGER NOT NULL, hash TEXT NOT NULL, text TEXT NOT NULL, cjk INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS chunks_path ON chunks(path);
CREATE INDEX IF NOT EXISTS chunks_hash ON chunks(hash);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
  text, content='chunks', content_rowid='id', tokenize='unicode61 remove_diacritics 2');
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_cjk USING fts5(text, tokenize='trigram');
` + embeddingCacheSQL

// Index is one agent's memory index: a SQLite file under the state dir
// mirroring the workspace's memory notes.
type Index struct {
	db   *sql.DB
	root string // real path of the workspace
	path string
	// ranker is the gateway's pinned connection and cache for ranking
	// (nil in a one-shot process: a pooled connection, nothing kept).
	ranker *rankConn
	// sqlRank ranks words by bm25() in SQL (tests compare both ways).
	sqlRank bool
}

// dbPath is where an agent's index lives: memorySearch.store.path (with
// {agentId}) or <state>/memory/<agentId>.sqlite, as the original.
func dbPath(stateDir, configured, agent string) string {
	if configured != "" {
		return expandAgent(configured, agent)
	}
	return filepath.Join(stateDir, "memory", agent+".sqlite")
}

// Open opens (creating) the index at path for the workspace root. An index
// built for another workspace or schema is emptied first.
func Open(ctx context.Context, path, root string) (*Index, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("memory index: %w", err)
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)") // derived data: rebuilt from the notes if lost
	// Pages read through a mapping, not a pread per page: a search ranks
	// every chunk a common word matches (40% less time at 40,000 notes).
	q.Add("_pragma", "mmap_size(268435456)")
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("memory index %s: %w", path, err)
	}
	ix := &Index{db: db, root: root, path: path}
	if err := ix.prepare(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("memory index %s: %w", path, err)
	}
	return ix, nil
}

// Close closes the database.
func (ix *Index) Close() error { return ix.db.Close() }

func (ix *Index) prepare(ctx context.Context) error {
	var ver, root string
	// The common case (an existing index of this workspace) reads only.
	err := ix.db.QueryRowContext(ctx,
		`SELECT (SELECT value FROM meta WHERE key='version'), (SELECT value FROM meta WHERE key='root')`).Scan(&ver, &root)
	if err == nil && ver == schemaVersion && root == ix.root {
		return nil
	}
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	stmts := []string{}
	if err == nil { // tables exist but belong to another version or workspace
		stmts = append(stmts, `DROP TABLE IF EXISTS chunks_fts`, `DROP TABLE IF EXISTS chunks_cjk`,
			`DROP TABLE IF EXISTS chunks`, `DROP TABLE IF EXISTS files`)
	}
	stmts = append(stmts, schemaSQL)
	for _, s := range stmts {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx,
		`INSERT OR REPLACE INTO meta(key,value) VALUES ('version',?),('root',?)`, schemaVersion, ix.root); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM meta WHERE key IN ('scan','lengths')`); err != nil {
		return err
	}
	return tx.Commit()
}

// fileState is what the index holds of a note.
type fileState struct {
	st   noteStat
	hash string
	racy bool // changed too close to its read for the stat to prove it unchanged
}

// SyncStats says what a sync changed.
type SyncStats struct {
	Files     int `json:"files"`
	Indexed   int `json:"indexed"`
	Removed   int `json:"removed"`
	Chunks    int `json:"chunks"`
	Unchanged int `json:"unchanged"`
}

// Sync brings the index up to date with the notes. The scan stats every
// note (an edit in place shows only on the note itself, never on its
// directory, so nothing cheaper sees it from a fresh process) and digests
// the stats into one signature; when it equals the one stored by the last
// sync, and the few notes changed too close to their read ("racy") still
// hash the same, nothing changed and no row of the files table is loaded.
// Otherwise it re-reads the notes whose stat changed, drops the ones gone,
// and stores the new signature, under the write lock.
func (ix *Index) Sync(ctx context.Context) (SyncStats, error) {
	st, _, err := ix.syncScan(ctx, func() ([]scanned, error) { return scanNotes(ix.root) })
	return st, err
}

// syncScan is Sync with the scan given (the gateway's watcher scans and
// watches each directory at once). sig is the signature the index holds
// once it returns: "" when it holds none (a note vanished mid-sync, so the
// next sync must look again).
func (ix *Index) syncScan(ctx context.Context, scan func() ([]scanned, error)) (st SyncStats, sig string, err error) {
	start := time.Now().UnixNano()
	notes, err := scan()
	if err != nil {
		return st, "", err
	}
	st.Files = len(notes)
	sig = signature(notes)
	clean, err := ix.unchanged(ctx, notes, sig, start)
	if err != nil {
		return st, "", err
	}
	if clean {
		st.Unchanged = len(notes)
		return st, sig, nil
	}
	tx, err := ix.db.BeginTx(ctx, nil) // BEGIN IMMEDIATE: one writer at a time
	if err != nil {
		return st, "", fmt.Errorf("memory index: %w", err)
	}
	defer tx.Rollback()
	known, err := ix.known(ctx, tx) // read under the lock: another process may have synced
	if err != nil {
		return st, "", err
	}
	vanished := false
	for _, n := range notes {
		if err := ctx.Err(); err != nil {
			return st, "", err
		}
		k, ok := known[n.rel]
		delete(known, n.rel)
		if ok && k.st == n.st && !k.racy {
			st.Unchanged++
			continue
		}
		res, chunks, err := ix.indexFile(ctx, tx, n, k.hash, n.st.racy(start))
		if err != nil {
			return st, "", err
		}
		switch res {
		case noteIndexed:
			st.Indexed++
			st.Chunks += chunks
		case noteSame:
			st.Unchanged++
		case noteGone:
			st.Removed++
			vanished = true
		}
	}
	for rel := range known {
		if err := deleteFile(ctx, tx, rel); err != nil {
			return st, "", err
		}
		st.Removed++
	}
	if st.Indexed+st.Removed > 0 {
		if err := writeLengths(ctx, tx); err != nil {
			return st, "", err
		}
	}
	// A note that vanished between the scan and its read is not in the
	// index but is in sig: store no signature, so the next sync looks again.
	q, args := `INSERT OR REPLACE INTO meta(key,value) VALUES ('scan',?)`, []any{sig}
	if vanished {
		q, args = `DELETE FROM meta WHERE key='scan'`, nil
	}
	if _, err := tx.ExecContext(ctx, q, args...); err != nil {
		return st, "", fmt.Errorf("memory index: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return st, "", fmt.Errorf("memory index: commit: %w", err)
	}
	if vanished {
		sig = ""
	}
	return st, sig, nil
}

// unchanged is the read-only warm path: the stored signature equals sig
// and every racy note still hashes as indexed. Racy notes now old enough
// to be trusted get their flag cleared (only if their row is still the one
// checked), so they are not re-read forever.
func (ix *Index) unchanged(ctx context.Context, notes []scanned, sig string, start int64) (bool, error) {
	var stored string
	err := ix.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key='scan'`).Scan(&stored)
	if err == sql.ErrNoRows || err == nil && stored != sig {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("memory index: %w", err)
	}
	rows, err := ix.db.QueryContext(ctx, `SELECT path, hash FROM files WHERE racy = 1`)
	if err != nil {
		return false, fmt.Errorf("memory index: %w", err)
	}
	racy := map[string]string{}
	for rows.Next() {
		var p, h string
		if err := rows.Scan(&p, &h); err != nil {
			rows.Close()
			return false, fmt.Errorf("memory index: %w", err)
		}
		racy[p] = h
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(racy) == 0 {
		return err == nil, err
	}
	var settled []scanned
	for _, n := range notes {
		h, ok := racy[n.rel]
		if !ok {
			continue
		}
		if _, got, err := readNote(ix.root, n.rel); err != nil || got != h {
			return false, nil // changed in the same tick: the slow path re-reads it
		}
		if !n.st.racy(start) {
			settled = append(settled, n)
		}
	}
	if len(settled) == 0 {
		return true, nil
	}
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("memory index: %w", err)
	}
	defer tx.Rollback()
	for _, n := range settled {
		if _, err := tx.ExecContext(ctx, `UPDATE files SET racy = 0 WHERE path = ? AND hash = ?
			AND ino = ? AND size = ? AND mtime_ns = ? AND ctime_ns = ?`,
			n.rel, racy[n.rel], n.st.ino, n.st.size, n.st.mtime, n.st.ctime); err != nil {
			return false, fmt.Errorf("memory index: %w", err)
		}
	}
	return true, tx.Commit()
}

type querier interface {
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
}

func (ix *Index) known(ctx context.Context, q querier) (map[string]fileState, error) {
	rows, err := q.QueryContext(ctx, `SELECT path, ino, size, mtime_ns, ctime_ns, hash, racy FROM files`)
	if err != nil {
		return nil, fmt.Errorf("memory index: %w", err)
	}
	defer rows.Close()
	out := map[string]fileState{}
	for rows.Next() {
		var p string
		var s fileState
		if err := rows.Scan(&p, &s.st.ino, &s.st.size, &s.st.mtime, &s.st.ctime, &s.hash, &s.racy); err != nil {
			return nil, err
		}
		out[p] = s
	}
	return out, rows.Err()
}

// maxNoteBytes caps one note; a bigger file is indexed up to the cap.
const maxNoteBytes = 16 << 20

// What indexFile did with a note.
const (
	noteIndexed = iota // new or edited: chunks replaced
	noteSame           // content as indexed (touched, or a racy re-check)
	noteGone           // vanished, or no longer a lone regular file, since the scan
)

// indexFile records a note's stat and replaces its chunks. When its content
// hash is unchanged (touched, not edited) only the stat is updated. The
// stat stored is the scan's, taken before the read: a write after it shows
// as a changed stat next time, or, within the same tick, as racy.
func (ix *Index) indexFile(ctx context.Context, tx *sql.Tx, n scanned, oldHash string, racy bool) (int, int, error) {
	rel := n.rel
	text, hash, err := readNote(ix.root, rel)
	if err != nil {
		if os.IsNotExist(err) || errors.Is(err, errNotNote) {
			return noteGone, 0, deleteFile(ctx, tx, rel)
		}
		return 0, 0, fmt.Errorf("memory index: %s: %w", rel, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO files(path,ino,size,mtime_ns,ctime_ns,hash,racy)
		VALUES (?,?,?,?,?,?,?)`, rel, n.st.ino, n.st.size, n.st.mtime, n.st.ctime, hash, racy); err != nil {
		return 0, 0, err
	}
	if hash == oldHash {
		return noteSame, 0, nil
	}
	if err := deleteChunks(ctx, tx, rel); err != nil {
		return 0, 0, err
	}
	chunks := chunkLines(text, chunkMaxChars, chunkOverlap)
	ins, err := tx.PrepareContext(ctx, `INSERT INTO chunks(path,start_line,end_line,hash,text,cjk) VALUES (?,?,?,?,?,?)`)
	if err != nil {
		return 0, 0, err
	}
	defer ins.Close()
	fts, err := tx.PrepareContext(ctx, `INSERT INTO chunks_fts(rowid,text) VALUES (?,?)`)
	if err != nil {
		return 0, 0, err
	}
	defer fts.Close()
	cjk, err := tx.PrepareContext(ctx, `INSERT INTO chunks_cjk(rowid,text) VALUES (?,?)`)
	if err != nil {
		return 0, 0, err
	}
	defer cjk.Close()
	for _, c := range chunks {
		has := hasCJK(c.Text)
		res, err := ins.ExecContext(ctx, rel, c.StartLine, c.EndLine, c.Hash, c.Text, has)
		if err != nil {
			return 0, 0, err
		}
		id, _ := res.LastInsertId()
		if _, err := fts.ExecContext(ctx, id, c.Text); err != nil {
			return 0, 0, err
		}
		if has {
			if _, err := cjk.ExecContext(ctx, id, c.Text); err != nil {
				return 0, 0, err
			}
		}
	}
	return noteIndexed, len(chunks), nil
}

func deleteFile(ctx context.Context, tx *sql.Tx, rel string) error {
	if err := deleteChunks(ctx, tx, rel); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM files WHERE path=?`, rel)
	return err
}

// deleteChunks removes a file's chunks from the table and both FTS indexes
// (chunks_fts is external-content: it is told the old text to remove).
func deleteChunks(ctx context.Context, tx *sql.Tx, rel string) error {
	stmts := []string{
		`INSERT INTO chunks_fts(chunks_fts,rowid,text) SELECT 'delete', id, text FROM chunks WHERE path=?`,
		`DELETE FROM chunks_cjk WHERE rowid IN (SELECT id FROM chunks WHERE path=? AND cjk=1)`,
		`DELETE FROM chunks WHERE path=?`,
	}
	for _, s := range stmts {
		if _, err := tx.ExecContext(ctx, s, rel); err != nil {
			return fmt.Errorf("memory index: %w", err)
		}
	}
	return nil
}

// reset empties the index (memory index --force).
func (ix *Index) reset(ctx context.Context) error {
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, s := range []string{`DELETE FROM chunks_cjk`, `DELETE FROM chunks`,
		`INSERT INTO chunks_fts(chunks_fts) VALUES('delete-all')`, `DELETE FROM files`,
		`DELETE FROM meta WHERE key IN ('scan','lengths')`} {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return err
		}
	}
	return tx.Commit()
}
