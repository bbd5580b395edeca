package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// PairedDevice is one approved device identity: its key, the roles and
// scopes it may use, and the client metadata it paired with. The JSON tags
// are those of the legacy devices/paired.json.
type PairedDevice struct {
	DeviceID          string   `json:"deviceId"`
	PublicKey         string   `json:"publicKey"`
	Roles             []string `json:"roles"`
	Scopes            []string `json:"scopes"`
	ClientID          string   `json:"clientId,omitempty"`
	ClientMode        string   `json:"clientMode,omitempty"`
	DisplayName       string   `json:"displayName,omitempty"`
	Platform          string   `json:"platform,omitempty"`
	DeviceFamily      string   `json:"deviceFamily,omitempty"`
	CreatedAtMs       int64    `json:"createdAtMs"`
	ApprovedAtMs      int64    `json:"approvedAtMs"`
	LastConnectedAtMs int64    `json:"lastConnectedAtMs,omitempty"`
	// OperatorLabel is the name an operator gave the device
	// (device.pair.rename); lists show it before the client's own name.
	OperatorLabel string `json:"operatorLabel,omitempty"`
	// Tokens are never listed or sent (json "-"); the database keeps them.
	Tokens []DeviceToken `json:"-"`
}

// DeviceToken is a bearer token issued to a paired device for one role
// (hello-ok.auth.deviceToken). Only its SHA-256 is stored. A revoked token
// stays listed (with RevokedAtMs) until the device is given a new one.
type DeviceToken struct {
	Role        string   `json:"role"`
	Hash        string   `json:"hash"` // hex SHA-256 of the token
	Scopes      []string `json:"scopes"`
	IssuedAtMs  int64    `json:"issuedAtMs"`
	RotatedAtMs int64    `json:"rotatedAtMs,omitempty"`
	RevokedAtMs int64    `json:"revokedAtMs,omitempty"`
	// Bound: Scopes limit what the token grants (set by a rotation that
	// named them); otherwise it grants the device's approval at use.
	Bound bool `json:"bound,omitempty"`
	// Withheld: no caller received the token (a cross-device rotation);
	// the device is given a fresh one on its next verified connect.
	Withheld bool `json:"withheld,omitempty"`
}

// PairedDevices lists every paired device, ordered by id.
func (s *Store) PairedDevices(ctx context.Context) ([]PairedDevice, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT device_id, public_key, roles, scopes, client_id,
		client_mode, display_name, platform, device_family, created_at_ms, approved_at_ms,
		last_connected_at_ms, tokens, operator_label FROM paired_devices ORDER BY device_id`)
	if err != nil {
		return nil, fmt.Errorf("store: list paired devices: %w", err)
	}
	defer rows.Close()
	var out []PairedDevice
	for rows.Next() {
		var d PairedDevice
		var roles, scopes, tokens string
		if err := rows.Scan(&d.DeviceID, &d.PublicKey, &roles, &scopes, &d.ClientID, &d.ClientMode,
			&d.DisplayName, &d.Platform, &d.DeviceFamily, &d.CreatedAtMs, &d.ApprovedAtMs,
			&d.LastConnectedAtMs, &tokens, &d.OperatorLabel); err != nil {
			return nil, fmt.Errorf("store: list paired devices: %w", err)
		}
		if err := json.Unmarshal([]byte(roles), &d.Roles); err != nil {
			return nil, fmt.Errorf("store: device %s roles: %w", d.DeviceID, err)
		}
		if err := json.Unmarshal([]byte(scopes), &d.Scopes); err != nil {
			return nil, fmt.Errorf("store: device %s scopes: %w", d.DeviceID, err)
		}
		if err := json.Unmarshal([]byte(tokens), &d.Tokens); err != nil {
			return nil, fmt.Errorf("store: device %s tokens: %w", d.DeviceID, err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list paired devices: %w", err)
	}
	return out, nil
}

// ReplacePairedDevices makes the table hold exactly devs, in one
// transaction: rows not in devs are deleted, the others upserted.
func (s *Store) ReplacePairedDevices(ctx context.Context, devs []PairedDevice) error {
	return s.Tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `CREATE TEMP TABLE IF NOT EXISTS keep_devices(id TEXT PRIMARY KEY)`); err != nil {
			return fmt.Errorf("store: save paired devices: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM keep_devices`); err != nil {
			return fmt.Errorf("store: save paired devices: %w", err)
		}
		for _, d := range devs {
			if err := upsertDevice(ctx, tx, d); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO keep_devices(id) VALUES(?)`, d.DeviceID); err != nil {
				return fmt.Errorf("store: save paired devices: %w", err)
			}
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM paired_devices WHERE device_id NOT IN (SELECT id FROM keep_devices)`); err != nil {
			return fmt.Errorf("store: save paired devices: %w", err)
		}
		return nil
	})
}

// UpsertPairedDevice inserts or replaces one device.
func (s *Store) UpsertPairedDevice(ctx context.Context, d PairedDevice) error {
	return s.Tx(ctx, func(tx *sql.Tx) error { return upsertDevice(ctx, tx, d) })
}

// DeletePairedDevice removes one device (no error when absent).
func (s *Store) DeletePairedDevice(ctx context.Context, id string) error {
	if _, err := s.db.ExecContext(ctx, `DELETE FROM paired_devices WHERE device_id = ?`, id); err != nil {
		return fmt.Errorf("store: delete paired device %s: %w", id, err)
	}
	return nil
}

func upsertDevice(ctx context.Context, tx *sql.Tx, d PairedDevice) error {
	if d.DeviceID == "" {
		return errors.New("store: paired device without id")
	}
	roles, err := json.Marshal(nonNil(d.Roles))
	if err != nil {
		return err
	}
	scopes, err := json.Marshal(nonNil(d.Scopes))
	if err != nil {
		return err
	}
	tokens := []byte("[]")
	if len(d.Tokens) > 0 {
		if tokens, err = json.Marshal(d.Tokens); err != nil {
			return err
		}
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO paired_devices(device_id, public_key, roles, scopes,
		client_id, client_mode, display_name, platform, device_family, created_at_ms,
		approved_at_ms, last_connected_at_ms, tokens, operator_label) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)
		ON CONFLICT(device_id) DO UPDATE SET public_key=excluded.public_key, roles=excluded.roles,
		scopes=excluded.scopes, client_id=excluded.client_id, client_mode=excluded.client_mode,
		display_name=excluded.display_name, platform=excluded.platform,
		device_family=excluded.device_family, created_at_ms=excluded.created_at_ms,
		approved_at_ms=excluded.approved_at_ms, last_connected_at_ms=excluded.last_connected_at_ms,
		tokens=excluded.tokens, operator_label=excluded.operator_label`,
		d.DeviceID, d.PublicKey, string(roles), string(scopes), d.ClientID, d.ClientMode,
		d.DisplayName, d.Platform, d.DeviceFamily, d.CreatedAtMs, d.ApprovedAtMs, d.LastConnectedAtMs,
		string(tokens), d.OperatorLabel)
	if err != nil {
		return fmt.Errorf("store: save paired device %s: %w", d.DeviceID, err)
	}
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// legacyPairedKey marks the import of devices/paired.json in the meta table.
const legacyPairedKey = "import:devices/paired.json"

// ImportLegacyPairedDevices moves <state>/devices/paired.json into the
// store, once: the rows and a meta marker commit in one transaction, then
// the file is renamed paired.json.migrated. A crash between the commit and
// the rename only repeats the rename on the next start (the marker says the
// rows are in). It reports how many devices were imported (0 when there was
// nothing to do).
func (s *Store) ImportLegacyPairedDevices(ctx context.Context, stateDir string) (int, error) {
	path := filepath.Join(stateDir, "devices", "paired.json")
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("store: import %s: %w", path, err)
	}
	m := map[string]*PairedDevice{}
	// The legacy file is small; a decoder caps nothing but avoids reading
	// it twice. A corrupt file is an error, not an empty import.
	decErr := json.NewDecoder(f).Decode(&m)
	f.Close()
	n, already := 0, false
	err = s.Tx(ctx, func(tx *sql.Tx) error {
		_, done, err := Meta(ctx, tx, legacyPairedKey)
		if err != nil || done {
			already = done
			return err
		}
		if decErr != nil {
			return fmt.Errorf("store: import %s: %w", path, decErr)
		}
		for id, d := range m {
			if d == nil {
				continue
			}
			d.DeviceID = id
			if err := upsertDevice(ctx, tx, *d); err != nil {
				return err
			}
			n++
		}
		return SetMeta(ctx, tx, legacyPairedKey, strconv.FormatInt(time.Now().UnixMilli(), 10))
	})
	if err != nil {
		return 0, err
	}
	if already {
		// Imported before: finish an interrupted rename, but never clobber
		// the kept copy with a file that appeared later (it is ignored).
		if _, err := os.Lstat(path + ".migrated"); err == nil {
			return 0, nil
		}
	}
	if err := os.Rename(path, path+".migrated"); err != nil {
		return n, fmt.Errorf("store: imported %s but could not rename it: %w", path, err)
	}
	return n, nil
}
