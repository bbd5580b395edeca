package store

import (
	"context"
	"testing"
)

// BenchmarkOpen is the gateway's start-up cost for the database: open an
// existing, migrated file and check the schema version.
func BenchmarkOpen(b *testing.B) {
	dir := b.TempDir()
	s, err := Open(context.Background(), dir)
	if err != nil {
		b.Fatal(err)
	}
	s.Close()
	b.ResetTimer()
	for b.Loop() {
		s, err := Open(context.Background(), dir)
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

// BenchmarkOpenFresh creates and migrates a new database.
func BenchmarkOpenFresh(b *testing.B) {
	for b.Loop() {
		s, err := Open(context.Background(), b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

// BenchmarkUpsertPairedDevice is one durable (fsynced) write transaction.
func BenchmarkUpsertPairedDevice(b *testing.B) {
	s, err := Open(context.Background(), b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	d := PairedDevice{DeviceID: "d", PublicKey: "k", Roles: []string{"operator"}}
	for b.Loop() {
		if err := s.UpsertPairedDevice(context.Background(), d); err != nil {
			b.Fatal(err)
		}
	}
}
