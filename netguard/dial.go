package netguard

import (
	"context"
	"net"
	"net/netip"
)

// PinnedDialer dials only the checked addresses, whatever address the
// HTTP transport asks for (the port is kept).
func PinnedDialer(addrs []netip.Addr) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		_, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		var d net.Dialer
		var firstErr error
		for _, a := range addrs {
			c, err := d.DialContext(ctx, network, net.JoinHostPort(a.String(), port))
			if err == nil {
				return c, nil
			}
			if firstErr == nil {
				firstErr = err
			}
		}
		return nil, firstErr
	}
}

// resolverKey carries a replacement resolver in a context (tests answer
// names with chosen addresses; nothing else sets it).
type resolverKey struct{}

// LookupFunc answers a host name with its addresses.
type LookupFunc = func(ctx context.Context, host string) ([]netip.Addr, error)

type lookupFunc = LookupFunc

// WithResolver returns a context whose fetches resolve names with f
// instead of the system resolver (tests point public-looking names at
// local servers with it; the checks still apply to what f returns).
func WithResolver(ctx context.Context, f LookupFunc) context.Context {
	return context.WithValue(ctx, resolverKey{}, f)
}

func resolverFrom(ctx context.Context) lookupFunc {
	f, _ := ctx.Value(resolverKey{}).(lookupFunc)
	return f
}
