package web

import (
	"context"
	"net/netip"

	"github.com/openclaw-go/openclaw/netguard"
)

// fakeDNS answers names from m instead of the system resolver.
func fakeDNS(ctx context.Context, m map[string]string) context.Context {
	return netguard.WithResolver(ctx, func(_ context.Context, h string) ([]netip.Addr, error) {
		a, ok := m[h]
		if !ok {
			return nil, &lookupError{h}
		}
		return []netip.Addr{netip.MustParseAddr(a)}, nil
	})
}

type lookupError struct{ host string }

func (e *lookupError) Error() string { return "no such host " + e.host }
