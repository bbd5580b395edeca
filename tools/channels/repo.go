package channels

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/tools"
)

// migrations are the channels family's tables in the state database.
var migrations = []tools.Migration{
	{Version: 1, Name: "inbox, offsets and DM pairing", Up: tools.ExecMigration(
		// The next update to ask each account for (Telegram's getUpdates
		// offset): advanced in the same transaction that records the
		// updates, so what the platform no longer resends is here.
		`CREATE TABLE channels_offsets (
			channel    TEXT NOT NULL,
			account_id TEXT NOT NULL,
			next       INTEGER NOT NULL,
			PRIMARY KEY (channel, account_id)
		) STRICT`,
		// Updates received and not yet handled (answered, refused or
		// skipped): a restart handles them again, in update order.
		`CREATE TABLE channels_inbox (
			channel     TEXT NOT NULL,
			account_id  TEXT NOT NULL,
			update_id   INTEGER NOT NULL,
			payload     TEXT NOT NULL,
			received_ms INTEGER NOT NULL,
			PRIMARY KEY (channel, account_id, update_id)
		) STRICT`,
		// Pending DM pairing requests: one per sender and account, with
		// its code; expired after an hour.
		`CREATE TABLE channels_pairing_requests (
			channel      TEXT NOT NULL,
			account_id   TEXT NOT NULL,
			sender_id    TEXT NOT NULL,
			code         TEXT NOT NULL,
			meta         TEXT NOT NULL DEFAULT '{}',
			created_ms   INTEGER NOT NULL,
			last_seen_ms INTEGER NOT NULL,
			PRIMARY KEY (channel, account_id, sender_id)
		) STRICT`,
		// Senders an operator approved (DM access only).
		`CREATE TABLE channels_pairing_allow (
			channel     TEXT NOT NULL,
			account_id  TEXT NOT NULL,
			sender_id   TEXT NOT NULL,
			meta        TEXT NOT NULL DEFAULT '{}',
			approved_ms INTEGER NOT NULL,
			PRIMARY KEY (channel, account_id, sender_id)
		) STRICT`,
	)},
}

// Pairing limits, as the original's.
const (
	pairingTTL        = time.Hour
	pairingMaxPending = 3
	pairingCodeLen    = 8
	// pairingAlphabet is upper case letters and digits without the
	// ambiguous 0, O, 1 and I.
	pairingAlphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
)

type repo struct{ db *sql.DB }

// nextOffset is the stored getUpdates offset (0: none yet).
func (r repo) nextOffset(ctx context.Context, channel, account string) (int64, error) {
	var n int64
	err := r.db.QueryRowContext(ctx, `SELECT next FROM channels_offsets WHERE channel=? AND account_id=?`, channel, account).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return n, err
}

// inboxRow is one recorded update.
type inboxRow struct {
	UpdateID int64
	Payload  []byte
}

// record stores fetched updates and the offset after them, in one
// transaction: either all of the batch is recorded and the offset moved,
// or nothing (and the platform sends the batch again).
func (r repo) record(ctx context.Context, channel, account string, rows []inboxRow, next int64) error {
	tx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	now := time.Now().UnixMilli()
	for _, row := range rows {
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO channels_inbox(channel, account_id, update_id, payload, received_ms) VALUES (?,?,?,?,?)`,
			channel, account, row.UpdateID, string(row.Payload), now); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO channels_offsets(channel, account_id, next) VALUES (?,?,?)
		ON CONFLICT(channel, account_id) DO UPDATE SET next=max(next, excluded.next)`, channel, account, next); err != nil {
		return err
	}
	return tx.Commit()
}

// pending is the recorded updates not yet handled, oldest first.
func (r repo) pending(ctx context.Context, channel, account string) ([]inboxRow, error) {
	rows, err := r.db.QueryContext(ctx, `SELECT update_id, payload FROM channels_inbox WHERE channel=? AND account_id=? ORDER BY update_id`, channel, account)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []inboxRow
	for rows.Next() {
		var row inboxRow
		var p string
		if err := rows.Scan(&row.UpdateID, &p); err != nil {
			return nil, err
		}
		row.Payload = []byte(p)
		out = append(out, row)
	}
	return out, rows.Err()
}

// done forgets a handled update. It takes no request context: a handled
// update is marked even when the gateway is stopping.
func (r repo) done(channel, account string, updateID int64) error {
	_, err := r.db.ExecContext(context.Background(), `DELETE FROM channels_inbox WHERE channel=? AND account_id=? AND update_id=?`, channel, account, updateID)
	return err
}

// approved says whether an operator approved sender on this account.
func (r repo) approved(ctx context.Context, channel, account, sender string) (bool, error) {
	var n int
	err := r.db.QueryRowContext(ctx, `SELECT count(*) FROM channels_pairing_allow WHERE channel=? AND account_id=? AND sender_id=?`,
		channel, account, sender).Scan(&n)
	return n > 0, err
}

// pairingRequest is one pending request.
type pairingRequest struct {
	Channel    string
	AccountID  string
	SenderID   string
	Code       string
	Meta       string
	CreatedMs  int64
	LastSeenMs int64
}

// requestPairing records that sender asked for access: its pending
// request's code, and whether it was created now (only then does the
// sender get a reply). With pairingMaxPending requests pending on the
// account, a new sender gets none (code "").
func (r repo) requestPairing(ctx context.Context, channel, account, sender, meta string, now time.Time) (code string, created bool, err error) {
	tx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return "", false, err
	}
	defer func() { _ = tx.Rollback() }()
	ms := now.UnixMilli()
	if _, err := tx.ExecContext(ctx, `DELETE FROM channels_pairing_requests WHERE channel=? AND account_id=? AND created_ms < ?`,
		channel, account, ms-pairingTTL.Milliseconds()); err != nil {
		return "", false, err
	}
	err = tx.QueryRowContext(ctx, `SELECT code FROM channels_pairing_requests WHERE channel=? AND account_id=? AND sender_id=?`,
		channel, account, sender).Scan(&code)
	switch {
	case err == nil:
		if _, err := tx.ExecContext(ctx, `UPDATE channels_pairing_requests SET last_seen_ms=? WHERE channel=? AND account_id=? AND sender_id=?`,
			ms, channel, account, sender); err != nil {
			return "", false, err
		}
		return code, false, tx.Commit()
	case !errors.Is(err, sql.ErrNoRows):
		return "", false, err
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM channels_pairing_requests WHERE channel=? AND account_id=?`, channel, account).Scan(&n); err != nil {
		return "", false, err
	}
	if n >= pairingMaxPending {
		return "", false, tx.Commit()
	}
	for tries := 0; ; tries++ {
		code, err = newPairingCode()
		if err != nil {
			return "", false, err
		}
		var clash int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM channels_pairing_requests WHERE channel=? AND code=?`, channel, code).Scan(&clash); err != nil {
			return "", false, err
		}
		if clash == 0 || tries > 20 {
			break
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO channels_pairing_requests(channel, account_id, sender_id, code, meta, created_ms, last_seen_ms) VALUES (?,?,?,?,?,?,?)`,
		channel, account, sender, code, meta, ms, ms); err != nil {
		return "", false, err
	}
	return code, true, tx.Commit()
}

// newPairingCode draws pairingCodeLen characters of pairingAlphabet.
func newPairingCode() (string, error) {
	b := make([]byte, pairingCodeLen)
	var sb strings.Builder
	for sb.Len() < pairingCodeLen {
		if _, err := rand.Read(b); err != nil {
			return "", err
		}
		for _, c := range b {
			// 256 = 8 * 32: every byte maps evenly onto the alphabet.
			if sb.Len() < pairingCodeLen {
				sb.WriteByte(pairingAlphabet[int(c)%len(pairingAlphabet)])
			}
		}
	}
	return sb.String(), nil
}

// listPairing is the unexpired pending requests of channel ("" any) and
// account ("" any), oldest first.
func (r repo) listPairing(ctx context.Context, channel, account string, now time.Time) ([]pairingRequest, error) {
	rows, err := r.db.QueryContext(ctx, `SELECT channel, account_id, sender_id, code, meta, created_ms, last_seen_ms FROM channels_pairing_requests
		WHERE (?='' OR channel=?) AND (?='' OR account_id=?) AND created_ms >= ? ORDER BY created_ms, sender_id`,
		channel, channel, account, account, now.UnixMilli()-pairingTTL.Milliseconds())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []pairingRequest
	for rows.Next() {
		var p pairingRequest
		if err := rows.Scan(&p.Channel, &p.AccountID, &p.SenderID, &p.Code, &p.Meta, &p.CreatedMs, &p.LastSeenMs); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// approve moves the pending request matching (code or requestId) to the
// approved senders, in one transaction; nil when none matches.
func (r repo) approve(ctx context.Context, channel, account string, match func(pairingRequest) bool, now time.Time) (*pairingRequest, error) {
	tx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer func() { _ = tx.Rollback() }()
	reqs, err := repo{}.listTx(ctx, tx, channel, account, now)
	if err != nil {
		return nil, err
	}
	for _, p := range reqs {
		if !match(p) {
			continue
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM channels_pairing_requests WHERE channel=? AND account_id=? AND sender_id=?`,
			p.Channel, p.AccountID, p.SenderID); err != nil {
			return nil, err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO channels_pairing_allow(channel, account_id, sender_id, meta, approved_ms) VALUES (?,?,?,?,?)
			ON CONFLICT(channel, account_id, sender_id) DO UPDATE SET approved_ms=excluded.approved_ms`,
			p.Channel, p.AccountID, p.SenderID, p.Meta, now.UnixMilli()); err != nil {
			return nil, err
		}
		return &p, tx.Commit()
	}
	return nil, nil
}

func (repo) listTx(ctx context.Context, tx *sql.Tx, channel, account string, now time.Time) ([]pairingRequest, error) {
	rows, err := tx.QueryContext(ctx, `SELECT channel, account_id, sender_id, code, meta, created_ms, last_seen_ms FROM channels_pairing_requests
		WHERE channel=? AND (?='' OR account_id=?) AND created_ms >= ? ORDER BY created_ms`,
		channel, account, account, now.UnixMilli()-pairingTTL.Milliseconds())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []pairingRequest
	for rows.Next() {
		var p pairingRequest
		if err := rows.Scan(&p.Channel, &p.AccountID, &p.SenderID, &p.Code, &p.Meta, &p.CreatedMs, &p.LastSeenMs); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}
