package providers

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/openclaw-go/openclaw/failure"
)

// maxEventBytes caps one server-sent event (one line, and the data lines of
// one event joined) and a whole JSON answer, so a server that never ends a
// line cannot make us buffer without bound.
const maxEventBytes = 4 << 20

// MaxAnswerBytes caps one model answer as it is assembled: its text plus
// its tool calls' names and arguments. Past it the call fails with an error
// that names the cap (no model's output limit comes near it; a server that
// streams without end does), so neither the answer nor the events that
// stream it grow without bound.
const MaxAnswerBytes = 1 << 20

// sizeName spells a byte cap for error messages ("4 MiB").
func sizeName(n int) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// capError is a stream or answer that passed one of the caps above; the
// provider's call names itself in front of it (streamErr).
type capError struct{ msg string }

func (e *capError) Error() string { return e.msg }

func eventTooLarge() error {
	return &capError{fmt.Sprintf("a server-sent event is longer than %s (the cap on one event); "+
		"the server is not sending a chat completion stream, or one event carried a whole oversized answer", sizeName(maxEventBytes))}
}

// readSSE calls fn with the data of every server-sent event in r (multi-line
// data joined by "\n"), until EOF, fn returns stop, or ctx is done.
func readSSE(ctx context.Context, r io.Reader, fn func(data string) (stop bool, err error)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxEventBytes)
	var data []string
	size := 0
	flush := func() (bool, error) {
		if len(data) == 0 {
			return false, nil
		}
		d := strings.Join(data, "\n")
		data, size = data[:0], 0
		return fn(d)
	}
	for sc.Scan() {
		if err := ctx.Err(); err != nil {
			return err
		}
		line := sc.Text()
		if line == "" {
			if stop, err := flush(); stop || err != nil {
				return err
			}
			continue
		}
		if v, ok := strings.CutPrefix(line, "data:"); ok {
			v = strings.TrimPrefix(v, " ")
			if size += len(v) + 1; size > maxEventBytes {
				return eventTooLarge()
			}
			data = append(data, v)
		}
		// event:, id:, retry: and comments carry nothing we need: both
		// APIs repeat the event type inside the data.
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return eventTooLarge()
		}
		return fmt.Errorf("read stream: %w", err)
	}
	_, err := flush()
	return err
}

// answerSize counts the bytes of an answer being assembled against
// MaxAnswerBytes.
type answerSize struct{ n int }

// add counts n more bytes; past the cap it is an error naming it.
func (a *answerSize) add(n int) error {
	if a.n += n; a.n > MaxAnswerBytes {
		return &capError{fmt.Sprintf("the answer passed %s (the cap on one model answer); "+
			"ask for a shorter answer or split the task into steps", sizeName(MaxAnswerBytes))}
	}
	return nil
}

// readWhole reads a JSON answer of at most maxEventBytes.
func readWhole(r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxEventBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read answer: %w", err)
	}
	if len(b) > maxEventBytes {
		return nil, &capError{fmt.Sprintf("the JSON answer is longer than %s (the cap on one answer body)", sizeName(maxEventBytes))}
	}
	return b, nil
}

// capFailure names the provider in front of a cap error.
func capFailure(s *Settings, err error) error {
	var ce *capError
	if errors.As(err, &ce) {
		return failure.Errorf(failure.CodeFailed, "model provider %s: %s", s.ID, ce.msg)
	}
	return err
}
