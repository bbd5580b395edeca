package tools

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Service is a stateful family running inside the gateway (cron, process,
// browser, nodes): built once per gateway after the services it requires,
// started in dependency order, stopped in reverse on shutdown. Its actions
// reach it through its ServiceKey.
type Service interface {
	Start(ctx context.Context) error
	Stop(ctx context.Context) error
}

// Attacher is a service that starts work of its own (cron's agent turns,
// sub-agent announces) whose actions need other services than the ones it
// Requires. Once every service has started, the gateway calls Attach with
// a function returning the Env a handler gets (every service, the current
// config); the service calls it when the work starts, not before.
type Attacher interface {
	Attach(env func() *Env)
}

// ServiceSpec declares a service. New builds one instance per gateway (tests
// run several gateways in one process) from an Env that carries the config,
// the state dir, the base services (Store, Events, Jobs, Media, Conns,
// Routes) and, in Env.Services, only the services named in Requires, all
// already started. Migrations are the family's own schema steps, applied
// under Name when the gateway opens its store, before any New runs.
type ServiceSpec struct {
	Name       string
	Requires   []string
	Migrations []Migration
	New        func(env *Env) (Service, error)
}

// Migration is one step of a family's schema in the state database.
// Versions start at 1 and increase by one per family; each step runs in
// its own transaction with its bookkeeping row, at most once. A released
// step is never edited, only followed by a new one. Table names start with
// the family's name so parallel families never collide.
type Migration struct {
	Version int
	Name    string
	Up      func(ctx context.Context, tx *sql.Tx) error
}

// ExecMigration is a migration body made of plain SQL statements.
func ExecMigration(stmts ...string) func(context.Context, *sql.Tx) error {
	return func(ctx context.Context, tx *sql.Tx) error {
		for _, q := range stmts {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		return nil
	}
}

// ServiceKey is a family's typed handle on its service: the family declares
// one (var cronKey = tools.NewServiceKey[*scheduler]("cron")), registers
// with key.Spec and reaches the running instance with key.From, so no
// handler casts an interface by hand.
type ServiceKey[T Service] struct{ name string }

// NewServiceKey names a service of type T.
func NewServiceKey[T Service](name string) ServiceKey[T] { return ServiceKey[T]{name: name} }

// Name is the service's registered name (what other services Require).
func (k ServiceKey[T]) Name() string { return k.name }

// Spec is the ServiceSpec for registering this key with a typed
// constructor; set Requires and Migrations on the result as needed.
func (k ServiceKey[T]) Spec(newFn func(env *Env) (T, error)) ServiceSpec {
	return ServiceSpec{Name: k.name, New: func(env *Env) (Service, error) { return newFn(env) }}
}

// From returns the running service, or an UNREACHABLE error (exit 5) naming
// what needed it when this caller runs none (the CLI, or a constructor that
// did not Require it).
func (k ServiceKey[T]) From(env *Env, what string) (T, error) {
	return ServiceOf[T](env, k.name, what)
}

// ServiceOf returns the running service name as a T (see ServiceKey.From).
// A service of another type under that name is an internal error.
func ServiceOf[T Service](env *Env, name, what string) (T, error) {
	var zero T
	if env == nil || env.Services[name] == nil {
		return zero, needGateway(what)
	}
	t, ok := env.Services[name].(T)
	if !ok {
		return zero, Errorf(CodeFailed, "service %s is a %T, not a %T", name, env.Services[name], zero)
	}
	return t, nil
}

var (
	servicesMu sync.Mutex
	services   = map[string]ServiceSpec{}
)

// RegisterService adds a service, from an init function. It panics on a
// duplicate name or a missing constructor, as Register does. Dependencies
// are checked when the gateway starts (ServiceOrder): families register in
// any order.
func RegisterService(spec ServiceSpec) {
	if spec.Name == "" || spec.New == nil {
		panic("tools.RegisterService: service needs Name and New")
	}
	servicesMu.Lock()
	defer servicesMu.Unlock()
	if _, dup := services[spec.Name]; dup {
		panic("tools.RegisterService: duplicate service " + spec.Name)
	}
	services[spec.Name] = spec
}

// Services returns every registered service, sorted by name.
func Services() []ServiceSpec {
	servicesMu.Lock()
	defer servicesMu.Unlock()
	out := make([]ServiceSpec, 0, len(services))
	for _, s := range services {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ServiceOrder sorts specs so each comes after everything it requires
// (the gateway starts them in this order and stops them in reverse). It is
// stable: among services free to start, the one first by name goes first.
// A missing dependency or a cycle is an error naming the services.
func ServiceOrder(specs []ServiceSpec) ([]ServiceSpec, error) {
	byName := make(map[string]ServiceSpec, len(specs))
	for _, s := range specs {
		if _, dup := byName[s.Name]; dup {
			return nil, fmt.Errorf("service %s is declared twice", s.Name)
		}
		byName[s.Name] = s
	}
	var missing []string
	for _, s := range specs {
		for _, d := range s.Requires {
			if _, ok := byName[d]; !ok {
				missing = append(missing, fmt.Sprintf("%s requires %s, which is not registered", s.Name, d))
			}
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return nil, fmt.Errorf("services: %s", strings.Join(missing, "; "))
	}
	// Kahn's algorithm, taking the smallest ready name each round.
	indeg := map[string]int{}
	users := map[string][]string{}
	for _, s := range specs {
		indeg[s.Name] += 0
		for _, d := range dedupe(s.Requires) {
			indeg[s.Name]++
			users[d] = append(users[d], s.Name)
		}
	}
	var ready []string
	for n, d := range indeg {
		if d == 0 {
			ready = append(ready, n)
		}
	}
	out := make([]ServiceSpec, 0, len(specs))
	for len(ready) > 0 {
		sort.Strings(ready)
		n := ready[0]
		ready = ready[1:]
		out = append(out, byName[n])
		for _, u := range users[n] {
			if indeg[u]--; indeg[u] == 0 {
				ready = append(ready, u)
			}
		}
	}
	if len(out) < len(specs) {
		return nil, fmt.Errorf("services: dependency cycle: %s", cycleOf(byName, indeg))
	}
	return out, nil
}

// cycleOf names one cycle among the services left unsorted (indeg > 0),
// as "a -> b -> a".
func cycleOf(byName map[string]ServiceSpec, indeg map[string]int) string {
	var left []string
	for n, d := range indeg {
		if d > 0 {
			left = append(left, n)
		}
	}
	sort.Strings(left)
	// Walk requirements that are themselves unsorted until a name repeats.
	seen := map[string]int{}
	var path []string
	n := left[0]
	for {
		if i, ok := seen[n]; ok {
			return strings.Join(append(path[i:], n), " -> ")
		}
		seen[n] = len(path)
		path = append(path, n)
		next := ""
		reqs := append([]string(nil), byName[n].Requires...)
		sort.Strings(reqs)
		for _, d := range reqs {
			if indeg[d] > 0 {
				next = d
				break
			}
		}
		n = next
	}
}

func dedupe(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
