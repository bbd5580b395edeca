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
