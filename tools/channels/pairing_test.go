package channels

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/store"
)

func openRepo(t *testing.T) repo {
	t.Helper()
	f := store.Family{Name: "channels"}
	for _, m := range migrations {
		f.Migrations = append(f.Migrations, store.Migration{Version: m.Version, Name: m.Name, Up: m.Up})
	}
	st, err := store.Open(context.Background(), t.TempDir(), f)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return repo{db: st.DB()}
}

// Pairing as the original: 8 characters without 0, O, 1 or I; one
// request (and one reply) per sender; at most 3 pending per account; an
// hour later the request is gone and a new one may be made.
func TestPairingRequestsLimits(t *testing.T) {
	r := openRepo(t)
	ctx := context.Background()
	now := time.Unix(1_800_000_000, 0)
	code, created, err := r.requestPairing(ctx, "telegram", "default", "1", "{}", now)
	if err != nil || !created || len(code) != 8 || strings.ContainsAny(code, "0O1I") || strings.ToUpper(code) != code {
		t.Fatalf("first request: %q %v %v", code, created, err)
	}
	again, created, err := r.requestPairing(ctx, "telegram", "default", "1", "{}", now.Add(time.Minute))
	if err != nil || created || again != code {
		t.Fatalf("the same sender again: %q created=%v %v", again, created, err)
	}
	for _, s := range []string{"2", "3"} {
		if _, created, err := r.requestPairing(ctx, "telegram", "default", s, "{}", now); err != nil || !created {
			t.Fatalf("sender %s: %v %v", s, created, err)
		}
	}
	if c, created, err := r.requestPairing(ctx, "telegram", "default", "4", "{}", now); err != nil || created || c != "" {
		t.Fatalf("a fourth pending request: %q %v %v", c, created, err)
	}
	// Another account has its own three.
	if _, created, _ := r.requestPairing(ctx, "telegram", "work", "4", "{}", now); !created {
		t.Fatal("the work account's first request was refused")
	}
	later := now.Add(pairingTTL + time.Second)
	if l, _ := r.listPairing(ctx, "telegram", "default", later); len(l) != 0 {
		t.Fatalf("expired requests listed: %v", l)
	}
	if c, created, _ := r.requestPairing(ctx, "telegram", "default", "4", "{}", later); !created || c == "" {
		t.Fatal("after expiry a new request was refused")
	}
	// Approving moves the request to the approved senders.
	got, err := r.approve(ctx, "telegram", "", func(q pairingRequest) bool { return q.SenderID == "4" && q.AccountID == "default" }, later)
	if err != nil || got == nil {
		t.Fatalf("approve: %v %v", got, err)
	}
	if ok, _ := r.approved(ctx, "telegram", "default", "4"); !ok {
		t.Fatal("not approved")
	}
	if ok, _ := r.approved(ctx, "telegram", "work", "4"); ok {
		t.Fatal("approval leaked to another account")
	}
}

// dmPolicy decides; an unknown policy fails closed.
func TestAccessPolicies(t *testing.T) {
	s := &Service{repo: openRepo(t)}
	ctx := context.Background()
	if _, err := s.repo.approve(ctx, "telegram", "", func(pairingRequest) bool { return false }, time.Now()); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		policy string
		allow  []string
		sender string
		want   int
	}{
		{"pairing", nil, "9", accessPair},
		{"pairing", []string{"tg:9"}, "9", accessAllow},
		{"allowlist", nil, "9", accessDeny},
		{"allowlist", []string{"telegram:9"}, "9", accessAllow},
		{"open", nil, "9", accessDeny},
		{"open", []string{"*"}, "9", accessAllow},
		{"open", []string{"8"}, "9", accessDeny},
		{"disabled", []string{"*"}, "9", accessDeny},
		{"bogus", []string{"*"}, "9", accessDeny},
	}
	for _, c := range cases {
		got, err := s.access(ctx, channels.Account{Channel: "telegram", ID: "default", DMPolicy: c.policy, AllowFrom: c.allow}, c.sender)
		if err != nil || got != c.want {
			t.Errorf("%s %v: %d %v, want %d", c.policy, c.allow, got, err, c.want)
		}
	}
}

// Session keys and agents as the original's routing rules.
func TestRoute(t *testing.T) {
	m := channels.TelegramInbound{SenderID: "55", ChatID: "55", ChatType: "private"}
	a := channels.Account{Channel: "telegram", ID: "default"}
	cases := []struct {
		cfg, agent, key string
	}{
		{`{}`, "main", "agent:main:main"},
		{`{session:{dmScope:"per-peer"}}`, "main", "agent:main:direct:55"},
		{`{session:{dmScope:"per-channel-peer"}}`, "main", "agent:main:telegram:direct:55"},
		{`{session:{dmScope:"per-account-channel-peer"}}`, "main", "agent:main:telegram:default:direct:55"},
		{`{agents:{list:[{id:"a"},{id:"b",default:true}]}}`, "b", "agent:b:main"},
		{`{bindings:[{agentId:"ch",match:{channel:"telegram"}},{agentId:"peer",match:{channel:"telegram",peer:{kind:"direct",id:"55"}}},{agentId:"acct",match:{channel:"telegram",accountId:"default"}}]}`, "peer", "agent:peer:main"},
		{`{bindings:[{agentId:"ch",match:{channel:"telegram",accountId:"*"}},{agentId:"acct",match:{channel:"telegram",accountId:"default"}}]}`, "acct", "agent:acct:main"},
		{`{bindings:[{agentId:"other",match:{channel:"telegram",peer:{kind:"direct",id:"66"}}},{agentId:"disc",match:{channel:"discord"}}]}`, "main", "agent:main:main"},
		{`{bindings:[{agentId:"p",match:{channel:"telegram",peer:{kind:"direct",id:55}},session:{dmScope:"per-peer"}}]}`, "p", "agent:p:direct:55"},
	}
	for _, c := range cases {
		p := filepath.Join(t.TempDir(), "openclaw.json")
		if err := os.WriteFile(p, []byte(c.cfg), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := config.Load(p, func(string) string { return "" })
		if err != nil {
			t.Fatal(err)
		}
		agent, key := route(cfg, a, m)
		if agent != c.agent || key != c.key {
			t.Errorf("%s: %s %s, want %s %s", c.cfg, agent, key, c.agent, c.key)
		}
	}
}

// A poller whose Bot API refuses the token keeps running with the error
// for channels.status, not connected; Stop ends it (the long poll honours
// the context) and it no longer runs.
func TestPollerReportsErrorsAndStops(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(401)
		io.WriteString(w, `{"ok":false,"error_code":401,"description":"Unauthorized"}`)
	}))
	defer srv.Close()
	p := filepath.Join(t.TempDir(), "openclaw.json")
	if err := os.WriteFile(p, []byte(`{channels:{telegram:{botToken:"1:BAD",apiBaseUrl:"`+srv.URL+`"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(p, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	s := &Service{repo: openRepo(t), cfg: cfg, accounts: map[string]*accountState{}}
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	var st accountState
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		st, _ = s.snapshot("telegram", "default")
		if st.LastError != "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no error reported")
		}
	}
	if !st.Running || st.Connected || !strings.Contains(st.LastError, "Unauthorized") {
		t.Fatalf("state = %+v", st)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if st, _ := s.snapshot("telegram", "default"); st.Running {
		t.Fatalf("still running after Stop: %+v", st)
	}
}
