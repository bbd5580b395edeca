package store

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The kill -9 test re-executes this test binary as a writer child: with
// STORE_CRASH_WRITER=<dir> TestMain runs crashWriter instead of the tests.
func TestMain(m *testing.M) {
	if dir := os.Getenv("STORE_CRASH_WRITER"); dir != "" {
		os.Exit(crashWriter(dir))
	}
	os.Exit(m.Run())
}

// crashSchema is a parent row and three children per transaction: a
// torn transaction would show up as a parent without its children.
func crashSchema(ctx context.Context, db *sql.DB) error {
	for _, q := range []string{
		`CREATE TABLE IF NOT EXISTS crash_parent(id INTEGER PRIMARY KEY, payload BLOB NOT NULL)`,
		`CREATE TABLE IF NOT EXISTS crash_child(id INTEGER PRIMARY KEY AUTOINCREMENT,
			parent INTEGER NOT NULL REFERENCES crash_parent(id), n INTEGER NOT NULL)`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// crashWriter commits transactions forever and prints each id only after
// its commit returned: every printed id is acknowledged.
func crashWriter(dir string) int {
	ctx := context.Background()
	s, err := Open(ctx, dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := crashSchema(ctx, s.DB()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	payload := []byte(strings.Repeat("x", 8192)) // spans pages: more to tear
	for {
		var id int64
		err := s.Tx(ctx, func(tx *sql.Tx) error {
			r, err := tx.ExecContext(ctx, `INSERT INTO crash_parent(payload) VALUES(?)`, payload)
			if err != nil {
				return err
			}
			if id, err = r.LastInsertId(); err != nil {
				return err
			}
			for n := range 3 {
				if _, err := tx.ExecContext(ctx, `INSERT INTO crash_child(parent, n) VALUES(?, ?)`, id, n); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		// os.Stdout is unbuffered: the line is in the pipe when Write returns.
		fmt.Fprintf(os.Stdout, "%d\n", id)
	}
}

// TestKill9DuringWritesLosesNothingAcknowledged kills a writer process with
// SIGKILL mid-stream, 30 times over the same database, and checks after each
// kill that the database is intact and holds every id the child reported.
func TestKill9DuringWritesLosesNothingAcknowledged(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	acked := map[int64]bool{}
	for round := range 30 {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "STORE_CRASH_WRITER="+dir)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Kill after a varying number of acknowledged commits, so the
		// SIGKILL lands at different points of a transaction.
		killAfter := 1 + (round*7)%23
		sc := bufio.NewScanner(out)
		seen := 0
		for sc.Scan() {
			id, err := strconv.ParseInt(sc.Text(), 10, 64)
			if err != nil {
				t.Fatalf("round %d: bad line %q", round, sc.Text())
			}
			acked[id] = true
			if seen++; seen == killAfter {
				if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
			}
		}
		// Lines already in the pipe were acknowledged too: the scan above
		// reads to EOF, which comes when the killed child's end closes.
		err = cmd.Wait()
		if seen < killAfter {
			t.Fatalf("round %d: writer exited after %d commits (%v): %s", round, seen, err, stderr.String())
		}
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			t.Fatalf("round %d: writer not killed by SIGKILL: %v", round, cmd.ProcessState)
		}
		verifyCrashDB(t, ctx, dir, acked, round)
	}
	t.Logf("%d acknowledged commits survived 30 kills", len(acked))
}

func verifyCrashDB(t *testing.T, ctx context.Context, dir string, acked map[int64]bool, round int) {
	t.Helper()
	deadline, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	s, err := Open(deadline, dir)
	if err != nil {
		t.Fatalf("round %d: reopen after kill: %v", round, err)
	}
	defer s.Close()
	if err := s.IntegrityCheck(deadline); err != nil {
		t.Fatalf("round %d: %v", round, err)
	}
	var fkProblems int
	rows, err := s.DB().QueryContext(deadline, `PRAGMA foreign_key_check`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		fkProblems++
	}
	rows.Close()
	if fkProblems > 0 {
		t.Fatalf("round %d: %d foreign key violations", round, fkProblems)
	}
	var torn int
	if err := s.DB().QueryRowContext(deadline, `SELECT count(*) FROM crash_parent p
		WHERE (SELECT count(*) FROM crash_child c WHERE c.parent = p.id) != 3`).Scan(&torn); err != nil {
		t.Fatal(err)
	}
	if torn > 0 {
		t.Fatalf("round %d: %d transactions torn", round, torn)
	}
	present := map[int64]bool{}
	rows, err = s.DB().QueryContext(deadline, `SELECT id FROM crash_parent`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		present[id] = true
	}
	rows.Close()
	for id := range acked {
		if !present[id] {
			t.Fatalf("round %d: acknowledged id %d lost", round, id)
		}
	}
}
