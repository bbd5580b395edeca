package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func openTemp(t *testing.T) (*Store, string) {
	t.Helper()
	dir := t.TempDir()
	s, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, dir
}

func TestOpenSetsPragmasAndMigrates(t *testing.T) {
	s, dir := openTemp(t)
	ctx := context.Background()
	if s.FilePath() != filepath.Join(dir, "openclaw.db") {
		t.Fatalf("path %s", s.FilePath())
	}
	// Pragmas are per connection: check on several pooled connections.
	s.DB().SetMaxOpenConns(3)
	conns := make([]*sql.Conn, 3)
	for i := range conns {
		c, err := s.DB().Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns[i] = c
	}
	for i, c := range conns {
		for pragma, want := range map[string]string{
			"journal_mode": "wal", "foreign_keys": "1", "busy_timeout": "5000", "synchronous": "2",
		} {
			var got string
			if err := c.QueryRowContext(ctx, "PRAGMA "+pragma).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("conn %d: PRAGMA %s = %s, want %s", i, pragma, got, want)
			}
		}
	}
	for _, c := range conns {
		c.Close()
	}
	v, err := s.SchemaVersion(ctx)
	if err != nil || v != len(migrations) {
		t.Fatalf("schema version %d, %v; want %d", v, err, len(migrations))
	}
	if err := s.IntegrityCheck(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestReopenKeepsDataAndVersion(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.UpsertPairedDevice(ctx, PairedDevice{DeviceID: "d1", PublicKey: "k", Roles: []string{"node"}}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	devs, err := s.PairedDevices(ctx)
	if err != nil || len(devs) != 1 || devs[0].Roles[0] != "node" || devs[0].Scopes == nil {
		t.Fatalf("devices %+v, %v", devs, err)
	}
}

func TestMigrationIsAtomic(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()
	base := len(migrations)
	ms := append(append([]Migration{}, migrations...), Migration{
		Version: base + 1, Name: "half",
		Up: func(ctx context.Context, tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, `CREATE TABLE half(x INTEGER)`); err != nil {
				return err
			}
			return errors.New("boom")
		},
	})
	if err := migrate(ctx, s.DB(), core(ms)); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("want the migration's error, got %v", err)
	}
	if v, _ := s.SchemaVersion(ctx); v != base {
		t.Fatalf("version moved to %d after a failed migration", v)
	}
	var n int
	if err := s.DB().QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name='half'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("half-applied migration left its table (%d, %v)", n, err)
	}
	// The fixed migration then applies once.
	ms[base].Up = execAll(`CREATE TABLE half(x INTEGER)`)
	if err := migrate(ctx, s.DB(), core(ms)); err != nil {
		t.Fatal(err)
	}
	if err := migrate(ctx, s.DB(), core(ms)); err != nil {
		t.Fatalf("re-running applied migrations: %v", err)
	}
	if v, _ := s.SchemaVersion(ctx); v != base+1 {
		t.Fatalf("version %d", v)
	}
}

func TestNewerSchemaIsRefused(t *testing.T) {
	s, dir := openTemp(t)
	if _, err := s.DB().Exec("PRAGMA user_version = 999"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err := Open(context.Background(), dir)
	if err == nil || !strings.Contains(err.Error(), "newer than this binary") {
		t.Fatalf("want refusal, got %v", err)
	}
}

func TestMigrationNumbering(t *testing.T) {
	bad := []Migration{{Version: 2, Name: "gap", Up: execAll()}}
	s, _ := openTemp(t)
	if err := migrate(context.Background(), s.DB(), core(bad)); err == nil {
		t.Fatal("a gap in migration versions must be refused")
	}
}

func TestConcurrentOpenAppliesMigrationsOnce(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := Open(ctx, dir)
			if err == nil {
				err = s.Close()
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	s, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.IntegrityCheck(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestForeignKeysEnforced(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()
	for _, q := range []string{
		`CREATE TABLE p(id INTEGER PRIMARY KEY)`,
		`CREATE TABLE c(id INTEGER PRIMARY KEY, p INTEGER NOT NULL REFERENCES p(id))`,
	} {
		if _, err := s.DB().ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.DB().ExecContext(ctx, `INSERT INTO c(id, p) VALUES(1, 42)`); err == nil {
		t.Fatal("insert with a dangling foreign key succeeded")
	}
}

// A zero-length openclaw.db (a failed copy or restore, a full disk) is
// refused with one line saying what to do, and left as it is (issue 30
// item 8); before, it silently became a fresh store. Garbage and a
// truncated database get the same refusal.
func TestUnusableFileIsRefusedAndKept(t *testing.T) {
	ctx := context.Background()
	good, gdir := openTemp(t)
	if err := good.UpsertPairedDevice(ctx, PairedDevice{DeviceID: "d1", PublicKey: "k", Roles: []string{"node"}}); err != nil {
		t.Fatal(err)
	}
	good.Close()
	whole, err := os.ReadFile(Path(gdir))
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string][]byte{
		"empty":     {},
		"garbage":   []byte(strings.Repeat("not a database\n", 400)),
		"truncated": whole[:len(whole)/3],
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(Path(dir), content, 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := Open(ctx, dir)
			if err == nil {
				s.Close()
				t.Fatal("opened an unusable database file")
			}
			msg := err.Error()
			if !errors.Is(err, ErrUnusable) || strings.Contains(msg, "\n") || !strings.Contains(msg, "move it aside") || !strings.Contains(msg, "restore") {
				t.Fatalf("error %q, want one line wrapping ErrUnusable that says what to do", msg)
			}
			after, err := os.ReadFile(Path(dir))
			if err != nil || !bytes.Equal(after, content) {
				t.Fatalf("the refused file changed (%d bytes, %v)", len(after), err)
			}
		})
	}
}

// A new database never exists empty: it is created under a temporary name
// and linked into place whole, and no temporary file is left.
func TestNewDatabaseAppearsWhole(t *testing.T) {
	s, dir := openTemp(t)
	s.Close()
	fi, err := os.Stat(Path(dir))
	if err != nil || fi.Size() == 0 || fi.Mode().Perm() != 0o600 {
		t.Fatalf("new database: %v, %v", fi, err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".openclaw.db.new-*"))
	if len(left) > 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}
