package channels

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/agentrun"
)

// Key is the receiving service's typed handle: one long-polling loop per
// configured, enabled Telegram account, the DM access rules, and the turn
// and reply for each allowed message.
var Key = tools.NewServiceKey[*Service]("channels")

func init() {
	spec := Key.Spec(newService)
	spec.Migrations = migrations
	spec.Requires = []string{agentrun.Key.Name()}
	tools.RegisterService(spec)
}

// Receiving settings.
const (
	// pollTimeoutSec is getUpdates' long-polling wait.
	pollTimeoutSec = 30
	// idleWait follows an empty answer that came back early (a Bot API
	// server that does not hold the request).
	idleWait = 300 * time.Millisecond
	// backoffMin and backoffMax bound the wait after a failed poll.
	backoffMin = time.Second
	backoffMax = 30 * time.Second
)

// Service receives on the channel accounts.
type Service struct {
	repo     repo
	agent    *agentrun.Service
	cfg      *config.Config
	stateDir string
	skip     bool

	mu       sync.Mutex
	full     func() *tools.Env
	accounts map[string]*accountState // "channel/account" -> state

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// accountState is what channels.status reports of one receiving account.
type accountState struct {
	Running        bool
	Connected      bool
	LastStartAt    int64
	LastInboundAt  int64
	LastOutboundAt int64
	LastError      string
}

func newService(env *tools.Env) (*Service, error) {
	st, err := env.NeedStore("channels")
	if err != nil {
		return nil, err
	}
	rt, err := agentrun.Key.From(env, "channels")
	if err != nil {
		return nil, err
	}
	cfg := env.Config
	if cfg == nil {
		cfg = config.Empty()
	}
	return &Service{repo: repo{db: st.DB()}, agent: rt, cfg: cfg, stateDir: env.StateDir,
		skip: os.Getenv("OPENCLAW_SKIP_CHANNELS") == "1", accounts: map[string]*accountState{}}, nil
}

// Attach takes the handler Env, so a message reads the current config.
func (s *Service) Attach(env func() *tools.Env) {
	s.mu.Lock()
	s.full = env
	s.mu.Unlock()
}

// config is the gateway's current config.
func (s *Service) config() *config.Config {
	s.mu.Lock()
	full := s.full
	s.mu.Unlock()
	if full != nil {
		if e := full(); e != nil && e.Config != nil {
			return e.Config
		}
	}
	return s.cfg
}

// Start runs a poller for each configured, enabled Telegram account (none
// with OPENCLAW_SKIP_CHANNELS=1). An account without a token is reported
// by channels.status, not started.
func (s *Service) Start(context.Context) error {
	s.ctx, s.cancel = context.WithCancel(context.Background())
	if s.skip {
		return nil
	}
	cfg := s.cfg
	for _, ch := range channels.Configured(cfg) {
		if ch != "telegram" {
			continue
		}
		for _, id := range channels.AccountIDs(cfg, ch) {
			acct, err := channels.Resolve(cfg, ch, id)
			if err != nil || !acct.Enabled {
				continue
			}
			p := &poller{svc: s, acct: acct, lanes: map[string]*laneQueue{}}
			s.mu.Lock()
			s.accounts[ch+"/"+id] = &accountState{Running: true, LastStartAt: time.Now().UnixMilli()}
			s.mu.Unlock()
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				p.run(s.ctx)
				s.update(acct, func(st *accountState) { st.Running, st.Connected = false, false })
			}()
		}
	}
	return nil
}

// Stop ends the pollers and waits for them: a turn in progress is
// cancelled and its update stays recorded, to be handled at the next start.
func (s *Service) Stop(ctx context.Context) error {
	if s.cancel != nil {
		s.cancel()
	}
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *Service) update(a channels.Account, f func(*accountState)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.accounts[a.Channel+"/"+a.ID]
	if st == nil {
		st = &accountState{}
		s.accounts[a.Channel+"/"+a.ID] = st
	}
	f(st)
}

// snapshot is the state of one account (ok false: not receiving here).
func (s *Service) snapshot(channel, account string) (accountState, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.accounts[channel+"/"+account]
	if !ok {
		return accountState{}, false
	}
	return *st, true
}

// poller is one account's receiving loop.
type poller struct {
	svc  *Service
	acct channels.Account

	mu    sync.Mutex
	lanes map[string]*laneQueue
	wg    sync.WaitGroup
}

// laneQueue is one session's messages waiting, handled in order by one
// goroutine while it is non-empty.
type laneQueue struct {
	items []channels.TelegramInbound
}

func (p *poller) run(ctx context.Context) {
	defer p.wg.Wait()
	a := p.acct
	// What a killed gateway recorded and did not handle goes first.
	if rows, err := p.svc.repo.pending(ctx, a.Channel, a.ID); err == nil {
		for _, row := range rows {
			p.dispatch(ctx, row)
		}
	} else {
		p.fail(err)
	}
	backoff := backoffMin
	for ctx.Err() == nil {
		offset, err := p.svc.repo.nextOffset(ctx, a.Channel, a.ID)
		if err != nil {
			p.fail(err)
			sleep(ctx, backoff)
			continue
		}
		raws, err := channels.TelegramGetUpdates(ctx, a, offset, pollTimeoutSec)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			p.fail(err)
			sleep(ctx, backoff)
			backoff = min(backoff*2, backoffMax)
			continue
		}
		backoff = backoffMin
		p.svc.update(a, func(st *accountState) { st.Connected = true })
		if len(raws) == 0 {
			sleep(ctx, idleWait)
			continue
		}
		var rows []inboxRow
		next := offset
		for _, raw := range raws {
			id, err := channels.TelegramUpdateID(raw)
			if err != nil {
				p.fail(err)
				continue
			}
			rows = append(rows, inboxRow{UpdateID: id, Payload: raw})
			next = max(next, id+1)
		}
		// Recorded (and the offset moved past them) before any is
		// handled: from here on a restart handles them, the platform
		// does not send them again.
		if err := p.svc.repo.record(ctx, a.Channel, a.ID, rows, next); err != nil {
			p.fail(err)
			sleep(ctx, backoff)
			continue
		}
		p.svc.update(a, func(st *accountState) { st.LastInboundAt = time.Now().UnixMilli() })
		for _, row := range rows {
			p.dispatch(ctx, row)
		}
	}
}

func (p *poller) fail(err error) {
	p.svc.update(p.acct, func(st *accountState) { st.LastError, st.Connected = err.Error(), false })
	fmt.Fprintf(os.Stderr, "channels: %s/%s: %v\n", p.acct.Channel, p.acct.ID, err)
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// dispatch decides what one recorded update gets: nothing (not a
// message for us), a pairing reply or a refusal (handled here, in
// order), or an agent turn (queued on its session's lane).
func (p *poller) dispatch(ctx context.Context, row inboxRow) {
	a := p.acct
	m, ok, err := channels.ParseTelegramUpdate(row.Payload)
	if err != nil || !ok || m.SenderIsBot || !m.Direct() {
		// Unreadable updates, edits and service messages, other bots
		// (bot-loop protection) and groups (not received yet) are
		// skipped: recorded as handled, nothing run.
		if err != nil {
			p.fail(err)
		}
		_ = p.svc.repo.done(a.Channel, a.ID, row.UpdateID)
		return
	}
	cfg := p.svc.config()
	verdict, err := p.svc.access(ctx, a, m.SenderID)
	if err != nil {
		p.fail(err)
		return // stays recorded: handled at the next start
	}
	switch verdict {
	case accessPair:
		if err := p.svc.pair(ctx, a, m); err != nil {
			p.fail(err)
			return
		}
		_ = p.svc.repo.done(a.Channel, a.ID, row.UpdateID)
		return
	case accessDeny:
		_ = p.svc.repo.done(a.Channel, a.ID, row.UpdateID)
		return
	}
	agentID, key := route(cfg, a, m)
	p.mu.Lock()
	q := p.lanes[key]
	if q != nil {
		q.items = append(q.items, m)
		p.mu.Unlock()
		return
	}
	q = &laneQueue{items: []channels.TelegramInbound{m}}
	p.lanes[key] = q
	p.mu.Unlock()
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			p.mu.Lock()
			if len(q.items) == 0 || ctx.Err() != nil {
				delete(p.lanes, key)
				p.mu.Unlock()
				return
			}
			next := q.items[0]
			q.items = q.items[1:]
			p.mu.Unlock()
			if err := p.svc.answer(ctx, a, agentID, key, next); err != nil {
				p.fail(err)
				continue // stays recorded: handled at the next start
			}
			_ = p.svc.repo.done(a.Channel, a.ID, next.UpdateID)
		}
	}()
}

// Access verdicts.
const (
	accessAllow = iota
	accessPair
	accessDeny
)

// access applies the account's dmPolicy to a direct message's sender:
// open (only with "*" in allowFrom; otherwise only the listed senders),
// allowlist (allowFrom only), pairing (allowFrom or approved, else a
// pairing request), disabled (nobody).
func (s *Service) access(ctx context.Context, a channels.Account, sender string) (int, error) {
	listed, wildcard := false, false
	for _, e := range a.AllowFrom {
		e = strings.TrimSpace(e)
		for _, pfx := range []string{"telegram:", "tg:"} {
			if len(e) > len(pfx) && strings.EqualFold(e[:len(pfx)], pfx) {
				e = e[len(pfx):]
			}
		}
		if e == "*" {
			wildcard = true
		}
		if e == sender {
			listed = true
		}
	}
	switch a.DMPolicy {
	case "disabled":
		return accessDeny, nil
	case "open":
		if wildcard || listed {
			return accessAllow, nil
		}
		return accessDeny, nil
	case "allowlist":
		if listed {
			return accessAllow, nil
		}
		return accessDeny, nil
	case "pairing":
		if listed {
			return accessAllow, nil
		}
		ok, err := s.repo.approved(ctx, a.Channel, a.ID, sender)
		if err != nil {
			return accessDeny, err
		}
		if ok {
			return accessAllow, nil
		}
		return accessPair, nil
	}
	// An unknown policy fails closed.
	return accessDeny, nil
}

// pair records the sender's pairing request and, only when it is new,
// answers with its code and the command that approves it.
func (s *Service) pair(ctx context.Context, a channels.Account, m channels.TelegramInbound) error {
	meta, _ := json.Marshal(map[string]string{"username": m.SenderUsername, "firstName": m.SenderName, "accountId": a.ID})
	code, created, err := s.repo.requestPairing(ctx, a.Channel, a.ID, m.SenderID, string(meta), time.Now())
	if err != nil || !created {
		return err
	}
	text := strings.Join([]string{
		"OpenClaw: access not configured.",
		"",
		"Your Telegram user id: " + m.SenderID,
		"Pairing code:",
		"```", code, "```",
		"",
		"Ask the bot owner to approve with:",
		"```", "openclaw pairing approve telegram " + code, "```",
	}, "\n")
	return s.send(ctx, a, m.ChatID, text, m.MessageID)
}

// answer runs the agent turn for an allowed message and sends its final
// answer back to the chat, as a reply to the message. The turn holds
// tools.LeastRunScopes: a chat sender is not an operator.
func (s *Service) answer(ctx context.Context, a channels.Account, agentID, key string, m channels.TelegramInbound) error {
	// Only the numeric id goes into the system prompt: a sender's display
	// name is theirs to choose and must not speak with the system's voice.
	extra := fmt.Sprintf("This message came from Telegram, a direct message from user id %s. Your final answer is sent back to that chat.", m.SenderID)
	out, err := s.agent.RunTurn(ctx, agentrun.Turn{Message: m.Text, AgentID: agentID, SessionKey: key, Extra: extra,
		Scopes: tools.LeastRunScopes})
	if err != nil {
		return err
	}
	var parts []string
	for _, pl := range out.Result.Payloads {
		if t := strings.TrimSpace(pl.Text); t != "" {
			parts = append(parts, t)
		}
	}
	text := strings.TrimSpace(strings.Join(parts, "\n\n"))
	if out.Status != "ok" && text == "" {
		text = "⚠️ The agent could not answer: " + firstLine(out.Error)
	}
	if text == "" || text == "NO_REPLY" {
		return nil
	}
	return s.send(ctx, a, m.ChatID, text, m.MessageID)
}

// send sends text to chat in pieces within Telegram's limit, the first as
// a reply to replyTo.
func (s *Service) send(ctx context.Context, a channels.Account, chat, text string, replyTo int64) error {
	ad, err := channels.Open(a)
	if err != nil {
		return err
	}
	for i, piece := range channels.SplitText(text, channels.TelegramTextLimit) {
		r := &channels.Request{Action: "send", Target: chat, Message: piece}
		if i == 0 && replyTo > 0 {
			r.ReplyTo = fmt.Sprint(replyTo)
		}
		if _, err := ad.Do(ctx, r); err != nil {
			return err
		}
		s.update(a, func(st *accountState) { st.LastOutboundAt = time.Now().UnixMilli() })
	}
	return nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	if s == "" {
		return "unknown error"
	}
	return s
}
