package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
)

func core(ms []Migration) []Family { return []Family{{Name: CoreFamily, Migrations: ms}} }

func fam(name string, tables ...string) Family {
	f := Family{Name: name}
	for i, tb := range tables {
		f.Migrations = append(f.Migrations, Migration{Version: i + 1, Name: tb,
			Up: execAll(fmt.Sprintf(`CREATE TABLE %s (id INTEGER PRIMARY KEY)`, tb))})
	}
	return f
}

// Two families numbered from 1 each, added in parallel, both apply and are
// versioned on their own; a second open applies nothing again.
func TestFamiliesMigrateIndependently(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	cron, nodes := fam("cron", "cron_jobs", "cron_runs"), fam("nodes", "nodes_pairings")
	for round := 0; round < 2; round++ {
		s, err := Open(ctx, dir, cron, nodes)
		if err != nil {
			t.Fatal(err)
		}
		for f, want := range map[string]int{"cron": 2, "nodes": 1, CoreFamily: len(migrations)} {
			if v, err := s.FamilyVersion(ctx, f); err != nil || v != want {
				t.Fatalf("round %d: %s at %d, %v; want %d", round, f, v, err, want)
			}
		}
		var n int
		if err := s.DB().QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&n); err != nil || n != len(migrations)+3 {
			t.Fatalf("round %d: %d bookkeeping rows, %v", round, n, err)
		}
		s.Close()
	}
	// A later binary adds a step to one family only.
	cron = fam("cron", "cron_jobs", "cron_runs", "cron_locks")
	s, err := Open(ctx, dir, cron, nodes)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v, _ := s.FamilyVersion(ctx, "cron"); v != 3 {
		t.Fatalf("cron at %d", v)
	}
}

func TestFamilyNewerThanBinaryIsRefused(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s, err := Open(ctx, dir, fam("cron", "cron_jobs", "cron_runs"))
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err = Open(ctx, dir, fam("cron", "cron_jobs"))
	if err == nil || err.Error() != "store: "+Path(dir)+": database schema version 2 of cron is newer than this binary knows (1): upgrade openclaw" {
		t.Fatalf("got %v", err)
	}
}

func TestFamilyDeclarationsChecked(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()
	for _, tc := range []struct {
		fams []Family
		want string
	}{
		{[]Family{fam("a"), fam("a")}, "migration family a is declared twice"},
		{[]Family{fam("Bad Name")}, `migration family "Bad Name": want a lower-case name`},
		{[]Family{{Name: "gap", Migrations: []Migration{{Version: 2, Name: "x", Up: execAll()}}}}, `gap migration "x" has version 2, want 1 (with a body)`},
	} {
		if err := migrate(ctx, s.DB(), tc.fams); err == nil || err.Error() != tc.want {
			t.Errorf("got %v, want %s", err, tc.want)
		}
	}
}

// A database written before families (user_version 4, no
// schema_migrations) opens under this code: its devices stay, its core
// steps are adopted rather than re-run, and a family's tables are added.
func TestLegacyDatabaseUpgradesInPlace(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	db, err := sql.Open("sqlite", dsn(Path(dir)))
	if err != nil {
		t.Fatal(err)
	}
	// What the previous binary's migrate did: each step, then user_version.
	for _, m := range migrations[:4] {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Up(ctx, tx); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", m.Version)); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO paired_devices(device_id, public_key, roles, operator_label)
		VALUES('old-dev', 'pk', '["operator"]', 'kept')`); err != nil {
		t.Fatal(err)
	}
	db.Close()

	s, err := Open(ctx, dir, fam("cron", "cron_jobs"))
	if err != nil {
		t.Fatalf("old database under new code: %v", err)
	}
	defer s.Close()
	devs, err := s.PairedDevices(ctx)
	if err != nil || len(devs) != 1 || devs[0].DeviceID != "old-dev" || devs[0].OperatorLabel != "kept" {
		t.Fatalf("devices %+v, %v", devs, err)
	}
	rows, err := s.DB().QueryContext(ctx, `SELECT family, version, name FROM schema_migrations ORDER BY family, version`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var f, n string
		var v int
		rows.Scan(&f, &v, &n)
		got = append(got, fmt.Sprintf("%s/%d %s", f, v, n))
	}
	rows.Close()
	want := "cron/1 cron_jobs|store/1 meta|store/2 paired devices|store/3 device tokens|store/4 device operator label"
	if strings.Join(got, "|") != want {
		t.Fatalf("bookkeeping:\n%s\nwant\n%s", strings.Join(got, "|"), want)
	}
	if v, _ := s.SchemaVersion(ctx); v != len(migrations) {
		t.Fatalf("user_version %d", v)
	}
}
