package sessions

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"
)

// The session's last delivery target (the original's lastChannel, lastTo,
// lastAccountId, lastThreadId): where a reply delivered for the session
// went last. They live in the entry's JSON, so no schema step is needed.

// DeliveryRoute is the conversation key's session delivers to: its last
// delivery target. ok is false for an unknown session or one that never
// delivered. It implements the message family's SessionRouter (looked up
// as the "sessions" service) with built-in types only.
func (s *Service) DeliveryRoute(ctx context.Context, key string) (channel, to, accountID, threadID string, ok bool, err error) {
	e, err := s.lookupRoute(ctx, key)
	if errors.Is(err, ErrNotFound) {
		return "", "", "", "", false, nil
	}
	if err != nil {
		return "", "", "", "", false, err
	}
	if e.LastChannel == "" || e.LastTo == "" {
		return "", "", "", "", false, nil
	}
	return e.LastChannel, e.LastTo, e.LastAccountID, e.LastThreadID, true, nil
}

// lookupRoute finds key as given, else its canonical form under its own
// agent (the message tool passes keys as callers wrote them).
func (s *Service) lookupRoute(ctx context.Context, key string) (*Entry, error) {
	key = strings.TrimSpace(key)
	if key == "" {
		return nil, ErrNotFound
	}
	e, err := s.Get(ctx, key)
	if !errors.Is(err, ErrNotFound) {
		return e, err
	}
	if c := Canonical(key, AgentOf(key)); c != key {
		return s.Get(ctx, c)
	}
	return nil, err
}

// RecordRoute stores key's last delivery target (creating the session
// when new), as a delivered reply does, in one transaction.
func (s *Service) RecordRoute(ctx context.Context, key, channel, to, accountID, threadID string) error {
	if key == "" || channel == "" || to == "" {
		return fmt.Errorf("sessions: record route of %q: session, channel and target are required", key)
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		now := s.now()
		e, err := getEntry(ctx, tx, `key = ?`, key)
		if errors.Is(err, ErrNotFound) {
			e, err = &Entry{Key: key, SessionID: uuid.NewString(), SessionStartedAt: now}, nil
		}
		if err != nil {
			return err
		}
		e.LastChannel, e.LastTo, e.LastAccountID, e.LastThreadID = channel, to, accountID, threadID
		e.UpdatedAt = max(now, e.UpdatedAt)
		return putEntry(ctx, tx, e)
	})
}
