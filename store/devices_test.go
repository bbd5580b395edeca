package store

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

const legacyJSON = `{
  "dev1": {"deviceId": "dev1", "publicKey": "pk1", "roles": ["operator"], "scopes": ["operator.read"],
           "clientId": "cli", "displayName": "laptop", "createdAtMs": 1, "approvedAtMs": 2},
  "dev2": {"publicKey": "pk2", "roles": ["node"], "scopes": []}
}`

func TestImportLegacyPairedDevicesOnce(t *testing.T) {
	s, dir := openTemp(t)
	ctx := context.Background()
	legacy := filepath.Join(dir, "devices", "paired.json")
	os.MkdirAll(filepath.Dir(legacy), 0o700)
	os.WriteFile(legacy, []byte(legacyJSON), 0o600)

	n, err := s.ImportLegacyPairedDevices(ctx, dir)
	if err != nil || n != 2 {
		t.Fatalf("import: %d, %v", n, err)
	}
	if _, err := os.Stat(legacy); !os.IsNotExist(err) {
		t.Fatalf("paired.json still there: %v", err)
	}
	if b, err := os.ReadFile(legacy + ".migrated"); err != nil || string(b) != legacyJSON {
		t.Fatalf("migrated copy: %v", err)
	}
	devs, err := s.PairedDevices(ctx)
	if err != nil || len(devs) != 2 || devs[0].DisplayName != "laptop" || devs[1].DeviceID != "dev2" || devs[1].Roles[0] != "node" {
		t.Fatalf("devices %+v %v", devs, err)
	}
	// A paired.json that shows up again is not imported twice and does not
	// replace the kept copy.
	os.WriteFile(legacy, []byte(`{"dev3": {"publicKey": "pk3"}}`), 0o600)
	if n, err := s.ImportLegacyPairedDevices(ctx, dir); err != nil || n != 0 {
		t.Fatalf("second import: %d, %v", n, err)
	}
	if b, _ := os.ReadFile(legacy + ".migrated"); string(b) != legacyJSON {
		t.Fatal("kept copy overwritten")
	}
	if devs, _ := s.PairedDevices(ctx); len(devs) != 2 {
		t.Fatalf("re-imported: %+v", devs)
	}
}

func TestImportFinishesInterruptedRename(t *testing.T) {
	s, dir := openTemp(t)
	ctx := context.Background()
	legacy := filepath.Join(dir, "devices", "paired.json")
	os.MkdirAll(filepath.Dir(legacy), 0o700)
	os.WriteFile(legacy, []byte(legacyJSON), 0o600)
	if _, err := s.ImportLegacyPairedDevices(ctx, dir); err != nil {
		t.Fatal(err)
	}
	// Simulate a crash between the commit and the rename.
	os.Rename(legacy+".migrated", legacy)
	if n, err := s.ImportLegacyPairedDevices(ctx, dir); err != nil || n != 0 {
		t.Fatalf("%d, %v", n, err)
	}
	if _, err := os.Stat(legacy + ".migrated"); err != nil {
		t.Fatal("rename not finished")
	}
}

func TestImportCorruptJSONFailsAndKeepsFile(t *testing.T) {
	s, dir := openTemp(t)
	legacy := filepath.Join(dir, "devices", "paired.json")
	os.MkdirAll(filepath.Dir(legacy), 0o700)
	os.WriteFile(legacy, []byte(`{"dev1": `), 0o600)
	if _, err := s.ImportLegacyPairedDevices(context.Background(), dir); err == nil {
		t.Fatal("corrupt paired.json imported without error")
	}
	if _, err := os.Stat(legacy); err != nil {
		t.Fatal("corrupt paired.json was moved away")
	}
}

func TestReplacePairedDevices(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()
	if err := s.ReplacePairedDevices(ctx, []PairedDevice{{DeviceID: "a", PublicKey: "1"}, {DeviceID: "b", PublicKey: "2"}}); err != nil {
		t.Fatal(err)
	}
	if err := s.ReplacePairedDevices(ctx, []PairedDevice{{DeviceID: "b", PublicKey: "3", Scopes: []string{"x"}}}); err != nil {
		t.Fatal(err)
	}
	devs, err := s.PairedDevices(ctx)
	if err != nil || len(devs) != 1 || devs[0].DeviceID != "b" || devs[0].PublicKey != "3" || devs[0].Scopes[0] != "x" {
		t.Fatalf("%+v %v", devs, err)
	}
	if err := s.DeletePairedDevice(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if devs, _ := s.PairedDevices(ctx); len(devs) != 0 {
		t.Fatalf("%+v", devs)
	}
}

// Device tokens are kept (hashed) with their device's row, and go with it.
func TestDeviceTokensRoundTrip(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()
	tok := DeviceToken{Role: "operator", Hash: "ab12", Scopes: []string{"operator.read"}, IssuedAtMs: 7}
	devs := []PairedDevice{
		{DeviceID: "d1", PublicKey: "pk1", Roles: []string{"operator"}, Tokens: []DeviceToken{tok}},
		{DeviceID: "d2", PublicKey: "pk2", Roles: []string{"node"}},
	}
	if err := s.ReplacePairedDevices(ctx, devs); err != nil {
		t.Fatal(err)
	}
	got, err := s.PairedDevices(ctx)
	if err != nil || len(got) != 2 || len(got[0].Tokens) != 1 || got[0].Tokens[0].Hash != "ab12" ||
		got[0].Tokens[0].Scopes[0] != "operator.read" || got[0].Tokens[0].IssuedAtMs != 7 || len(got[1].Tokens) != 0 {
		t.Fatalf("devices %+v %v", got, err)
	}
	if err := s.ReplacePairedDevices(ctx, devs[1:]); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := s.DB().QueryRowContext(ctx, `SELECT count(*) FROM paired_devices WHERE tokens LIKE '%ab12%'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("token rows left: %d %v", n, err)
	}
}

// An operator's label and a token's rotation and revocation marks are
// kept across a reopen of the database.
func TestDeviceLabelAndTokenMarksRoundTrip(t *testing.T) {
	s, path := openTemp(t)
	ctx := context.Background()
	tok := DeviceToken{Role: "operator", Hash: "cd34", Scopes: []string{"operator.read"}, IssuedAtMs: 1,
		RotatedAtMs: 2, RevokedAtMs: 3, Bound: true, Withheld: true}
	if err := s.UpsertPairedDevice(ctx, PairedDevice{DeviceID: "d1", PublicKey: "pk", Roles: []string{"operator"},
		OperatorLabel: "Desk", Tokens: []DeviceToken{tok}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	got, err := s2.PairedDevices(ctx)
	if err != nil || len(got) != 1 || got[0].OperatorLabel != "Desk" || len(got[0].Tokens) != 1 {
		t.Fatalf("devices %+v %v", got, err)
	}
	if g := got[0].Tokens[0]; g.RotatedAtMs != 2 || g.RevokedAtMs != 3 || !g.Bound || !g.Withheld {
		t.Fatalf("token %+v", g)
	}
}
