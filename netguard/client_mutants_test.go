package netguard

import (
	"net/http"
	"testing"
)

// The pinned client bounds the TLS handshake: a peer that accepts the
// connection and never answers the ClientHello cannot hold a fetch for as
// long as the caller's context allows. (10 * time.Second turned into
// 10 / time.Second, zero, meaning no bound, survived every test.)
func TestClientBoundsTheTLSHandshake(t *testing.T) {
	tr, ok := Client(nil).Transport.(*http.Transport)
	if !ok {
		t.Fatalf("transport %T", Client(nil).Transport)
	}
	if tr.TLSHandshakeTimeout <= 0 {
		t.Fatalf("TLS handshake timeout %v: unbounded", tr.TLSHandshakeTimeout)
	}
	if tr.Proxy != nil {
		t.Fatal("the client goes through a proxy: the guard would not decide where it connects")
	}
}

// trickle serves 'x' forever, at most 10 bytes a read, and counts what it
// handed out.
type trickle struct{ given int }

func (r *trickle) Read(p []byte) (int, error) {
	n := min(len(p), 10)
	for i := range n {
		p[i] = 'x'
	}
	r.given += n
	return n, nil
}

// ReadCapped takes no more than limit+1 bytes from the body (the one past
// the limit says it went on): each read asks for what is still missing.
// Asking for limit+1+len(buf) instead (a sign flipped) read on past the
// cap and survived every test.
func TestReadCappedTakesNoMoreThanLimitPlusOne(t *testing.T) {
	r := &trickle{}
	b, more, err := ReadCapped(t.Context(), r, 100)
	if err != nil || !more || len(b) != 100 {
		t.Fatalf("%d bytes, more %v, %v", len(b), more, err)
	}
	if r.given > 101 {
		t.Fatalf("took %d bytes from the body for a 100-byte cap", r.given)
	}
}
