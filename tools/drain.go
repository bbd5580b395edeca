package tools

import "context"

// Drainer is a Service whose actions wait on things outside the gateway (a
// browser, a remote process) and may outlive its drain. When shutdown
// begins the gateway calls Drain, before it waits for in-flight requests,
// with a context that ends at the drain deadline: the service makes its
// in-flight calls return by then. Drain itself returns at once.
type Drainer interface {
	Drain(ctx context.Context)
}
