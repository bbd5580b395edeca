package browser

import (
	"context"

	"github.com/openclaw-go/openclaw/tools"
)

const serviceName = "browser"

// service is the browser's lifecycle inside `openclaw serve`. The browsers
// themselves are independent detached processes shared with the CLI (a
// relayed call and a local call act on the same tab), and every call opens
// its own CDP connection, so the service holds no connection: starting the
// gateway launches nothing, and stopping it leaves the browsers running
// (`openclaw browser stop` ends one).
type service struct{}

func init() {
	tools.RegisterService(tools.ServiceSpec{Name: serviceName, New: func(*tools.Env) (tools.Service, error) {
		return service{}, nil
	}})
}

func (service) Start(context.Context) error { return nil }
func (service) Stop(context.Context) error  { return nil }
