package store

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"time"
)

// Migration is one schema step. Version numbers start at 1 and increase by
// one within a family; a released migration is never edited, only followed
// by a new one.
type Migration struct {
	Version int
	Name    string
	Up      func(ctx context.Context, tx *sql.Tx) error
}

// Family is one owner's numbered migrations (a service's, the gateway's
// jobs, this package's own). Families are versioned independently in
// schema_migrations, keyed by (family, version), so families added in
// parallel never collide on a number.
type Family struct {
	Name       string
	Migrations []Migration
}

// CoreFamily is this package's own schema (meta, paired devices). Its
// version is also kept in PRAGMA user_version, the one counter databases
// had before families, so an older binary still sees where it stands.
const CoreFamily = "store"

// familyName keeps names to what reads well in an error and a table row.
var familyName = regexp.MustCompile(`^[a-z][a-z0-9._-]*$`)

// execAll is a migration body made of plain statements.
func execAll(stmts ...string) func(context.Context, *sql.Tx) error {
	return func(ctx context.Context, tx *sql.Tx) error {
		for _, q := range stmts {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		return nil
	}
}

// SchemaVersion is the core family's version (PRAGMA user_version).
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	return userVersion(ctx, s.db)
}

// FamilyVersion is the last migration of family applied (0 for none).
func (s *Store) FamilyVersion(ctx context.Context, family string) (int, error) {
	return familyVersion(ctx, s.db, family)
}

type queryer interface {
	QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row
}

func userVersion(ctx context.Context, q queryer) (int, error) {
	var v int
	if err := q.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	return v, nil
}

func familyVersion(ctx context.Context, q queryer, family string) (int, error) {
	var v int
	err := q.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations WHERE family = ?`, family).Scan(&v)
	if err != nil {
		return 0, fmt.Errorf("read %s schema version: %w", family, err)
	}
	return v, nil
}

// checkFamilies refuses duplicate or odd names and gaps in numbering.
func checkFamilies(fams []Family) error {
	seen := map[string]bool{}
	for _, f := range fams {
		if !familyName.MatchString(f.Name) {
			return fmt.Errorf("migration family %q: want a lower-case name", f.Name)
		}
		if seen[f.Name] {
			return fmt.Errorf("migration family %s is declared twice", f.Name)
		}
		seen[f.Name] = true
		for i, m := range f.Migrations {
			if m.Version != i+1 || m.Up == nil {
				return fmt.Errorf("%s migration %q has version %d, want %d (with a body)", f.Name, m.Name, m.Version, i+1)
			}
		}
	}
	return nil
}

// migrate brings every family up to date: first the bookkeeping table (and,
// for a database from before families, the core steps user_version says
// were applied), then each family's pending steps in the order given. Each
// step runs in its own transaction together with its schema_migrations row,
// so a crash leaves the database at a whole step; BEGIN IMMEDIATE holds the
// write lock and the row is re-checked inside, so two processes opening a
// database at once apply each step exactly once. A database written by a
// newer binary (a family further than this one knows) is refused rather
// than guessed at.
func migrate(ctx context.Context, db *sql.DB, fams []Family) error {
	if err := checkFamilies(fams); err != nil {
		return err
	}
	if err := adoptLegacy(ctx, db); err != nil {
		return err
	}
	for _, f := range fams {
		cur, err := familyVersion(ctx, db, f.Name)
		if err != nil {
			return err
		}
		if f.Name == CoreFamily {
			if uv, err := userVersion(ctx, db); err != nil {
				return err
			} else if uv > cur {
				cur = uv
			}
		}
		if cur > len(f.Migrations) {
			return fmt.Errorf("database schema version %d of %s is newer than this binary knows (%d): upgrade openclaw", cur, f.Name, len(f.Migrations))
		}
		for _, m := range f.Migrations[cur:] {
			if err := applyOne(ctx, db, f.Name, m); err != nil {
				return err
			}
		}
	}
	return nil
}

// adoptLegacy creates schema_migrations and records, once, the core steps a
// database from before families had applied (its user_version).
func adoptLegacy(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("schema_migrations: begin: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		family        TEXT    NOT NULL,
		version       INTEGER NOT NULL,
		name          TEXT    NOT NULL,
		applied_at_ms INTEGER NOT NULL,
		PRIMARY KEY (family, version)
	) STRICT`); err != nil {
		return fmt.Errorf("schema_migrations: %w", err)
	}
	uv, err := userVersion(ctx, tx)
	if err != nil {
		return err
	}
	have, err := familyVersion(ctx, tx, CoreFamily)
	if err != nil {
		return err
	}
	for v := have + 1; v <= uv && v <= len(migrations); v++ {
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations(family, version, name, applied_at_ms)
			VALUES(?, ?, ?, 0)`, CoreFamily, v, migrations[v-1].Name); err != nil {
			return fmt.Errorf("schema_migrations: adopt %s %d: %w", CoreFamily, v, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("schema_migrations: commit: %w", err)
	}
	return nil
}

func applyOne(ctx context.Context, db *sql.DB, family string, m Migration) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("%s migration %d (%s): begin: %w", family, m.Version, m.Name, err)
	}
	defer tx.Rollback()
	var done int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE family = ? AND version = ?`,
		family, m.Version).Scan(&done); err != nil {
		return fmt.Errorf("%s migration %d (%s): %w", family, m.Version, m.Name, err)
	}
	if done > 0 {
		return nil // another process got there first
	}
	if err := m.Up(ctx, tx); err != nil {
		return fmt.Errorf("%s migration %d (%s): %w", family, m.Version, m.Name, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations(family, version, name, applied_at_ms)
		VALUES(?, ?, ?, ?)`, family, m.Version, m.Name, time.Now().UnixMilli()); err != nil {
		return fmt.Errorf("%s migration %d (%s): record: %w", family, m.Version, m.Name, err)
	}
	if family == CoreFamily {
		// PRAGMA takes no bind parameters; Version is an int from our own table.
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", m.Version)); err != nil {
			return fmt.Errorf("%s migration %d (%s): set version: %w", family, m.Version, m.Name, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("%s migration %d (%s): commit: %w", family, m.Version, m.Name, err)
	}
	return nil
}
