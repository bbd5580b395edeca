package memory

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	_ "modernc.org/sqlite" // the "sqlite" driver, FTS5 and trigram built in
)

// schemaVersion changes when the tables or the chunking change; an index of
// another version is rebuilt from the files (it is derived data). The
// embedding cache is kept across rebuilds: it is keyed by chunk content.
const schemaVersion = "3"

const schemaSQL = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
  path TEXT PRIMARY KEY, mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL, hash TEXT NOT NULL);
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
	return tx.Commit()
}

// fileState is what the stat walk compares against the index.
type fileState struct {
	mtime, size int64
	hash        string
}

// SyncStats says what a sync changed.
type SyncStats struct {
	Files     int `json:"files"`
	Indexed   int `json:"indexed"`
	Removed   int `json:"removed"`
	Chunks    int `json:"chunks"`
	Unchanged int `json:"unchanged"`
}

// Sync brings the index up to date with the notes: a stat walk, then
// re-reading only files whose size or mtime changed and dropping files that
// are gone. With nothing changed it takes no write lock.
func (ix *Index) Sync(ctx context.Context) (SyncStats, error) {
	var st SyncStats
	files, err := listFiles(ix.root)
	if err != nil {
		return st, err
	}
	st.Files = len(files)
	known, err := ix.known(ctx, ix.db)
	if err != nil {
		return st, err
	}
	if !changed(files, known) {
		st.Unchanged = len(files)
		return st, nil
	}
	tx, err := ix.db.BeginTx(ctx, nil) // BEGIN IMMEDIATE: one writer at a time
	if err != nil {
		return st, fmt.Errorf("memory index: %w", err)
	}
	defer tx.Rollback()
	known, err = ix.known(ctx, tx) // another process may have synced meanwhile
	if err != nil {
		return st, err
	}
	for rel, fi := range files {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		k, ok := known[rel]
		delete(known, rel)
		if ok && k.mtime == fi.ModTime().UnixNano() && k.size == fi.Size() {
			st.Unchanged++
			continue
		}
		n, err := ix.indexFile(ctx, tx, rel, fi, k.hash)
		if err != nil {
			return st, err
		}
		st.Indexed++
		st.Chunks += n
	}
	for rel := range known {
		if err := deleteFile(ctx, tx, rel); err != nil {
			return st, err
		}
		st.Removed++
	}
	if err := tx.Commit(); err != nil {
		return st, fmt.Errorf("memory index: commit: %w", err)
	}
	return st, nil
}

type querier interface {
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
}

func (ix *Index) known(ctx context.Context, q querier) (map[string]fileState, error) {
	rows, err := q.QueryContext(ctx, `SELECT path, mtime_ns, size, hash FROM files`)
	if err != nil {
		return nil, fmt.Errorf("memory index: %w", err)
	}
	defer rows.Close()
	out := map[string]fileState{}
	for rows.Next() {
		var p string
		var s fileState
		if err := rows.Scan(&p, &s.mtime, &s.size, &s.hash); err != nil {
			return nil, err
		}
		out[p] = s
	}
	return out, rows.Err()
}

func changed(files map[string]os.FileInfo, known map[string]fileState) bool {
	if len(files) != len(known) {
		return true
	}
	for rel, fi := range files {
		k, ok := known[rel]
		if !ok || k.mtime != fi.ModTime().UnixNano() || k.size != fi.Size() {
			return true
		}
	}
	return false
}

// maxNoteBytes caps one note; a bigger file is indexed up to the cap.
const maxNoteBytes = 16 << 20

// indexFile replaces a file's chunks. When its content hash is unchanged
// (touched, not edited) only the stat is updated.
func (ix *Index) indexFile(ctx context.Context, tx *sql.Tx, rel string, fi os.FileInfo, oldHash string) (int, error) {
	text, hash, err := readNote(filepath.Join(ix.root, filepath.FromSlash(rel)))
	if err != nil {
		if os.IsNotExist(err) { // deleted since the walk
			return 0, deleteFile(ctx, tx, rel)
		}
		return 0, fmt.Errorf("memory index: %s: %w", rel, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO files(path,mtime_ns,size,hash) VALUES (?,?,?,?)`,
		rel, fi.ModTime().UnixNano(), fi.Size(), hash); err != nil {
		return 0, err
	}
	if hash == oldHash {
		return 0, nil
	}
	if err := deleteChunks(ctx, tx, rel); err != nil {
		return 0, err
	}
	chunks := chunkLines(text, chunkMaxChars, chunkOverlap)
	ins, err := tx.PrepareContext(ctx, `INSERT INTO chunks(path,start_line,end_line,hash,text,cjk) VALUES (?,?,?,?,?,?)`)
	if err != nil {
		return 0, err
	}
	defer ins.Close()
	fts, err := tx.PrepareContext(ctx, `INSERT INTO chunks_fts(rowid,text) VALUES (?,?)`)
	if err != nil {
		return 0, err
	}
	defer fts.Close()
	cjk, err := tx.PrepareContext(ctx, `INSERT INTO chunks_cjk(rowid,text) VALUES (?,?)`)
	if err != nil {
		return 0, err
	}
	defer cjk.Close()
	for _, c := range chunks {
		has := hasCJK(c.Text)
		res, err := ins.ExecContext(ctx, rel, c.StartLine, c.EndLine, c.Hash, c.Text, has)
		if err != nil {
			return 0, err
		}
		id, _ := res.LastInsertId()
		if _, err := fts.ExecContext(ctx, id, c.Text); err != nil {
			return 0, err
		}
		if has {
			if _, err := cjk.ExecContext(ctx, id, c.Text); err != nil {
				return 0, err
			}
		}
	}
	return len(chunks), nil
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
		`INSERT INTO chunks_fts(chunks_fts) VALUES('delete-all')`, `DELETE FROM files`} {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return err
		}
	}
	return tx.Commit()
}
