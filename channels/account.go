package channels

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/failure"
)

// DefaultAccount is the account id of a channel's top-level credentials.
const DefaultAccount = "default"

// maxTokenFile caps a tokenFile read.
const maxTokenFile = 64 << 10

// Account is one channel account's resolved settings.
type Account struct {
	Channel string
	ID      string
	Token   string
	// TokenSource says where the token came from ("config", "tokenFile",
	// "env:TELEGRAM_BOT_TOKEN"), for status and errors; never the token.
	TokenSource string
	APIBase     string
	// Retry bounds the 429 handling: at most Attempts tries in all, each
	// wait at most MaxDelay (a longer retry_after fails at once).
	Attempts int
	MaxDelay time.Duration
	// MediaMaxBytes caps one attachment (channels.<id>.mediaMaxMb).
	MediaMaxBytes int64
	// Enabled is false when the account (or the channel) says
	// enabled:false: nothing is received on it.
	Enabled bool
	// DMPolicy is who may talk in direct messages: pairing (the
	// default), allowlist, open or disabled (channels.<id>.dmPolicy).
	DMPolicy string
	// AllowFrom is the senders allowed without pairing, as written
	// (channels.<id>.allowFrom: ids, "*", or "telegram:<id>").
	AllowFrom []string
}

// section is the channel's config object (nil when absent).
func section(cfg *config.Config, channel string) map[string]any {
	v, _ := cfg.Get("channels")
	m, _ := v.(map[string]any)
	s, _ := m[channel].(map[string]any)
	return s
}

// Configured is the channels with an adapter here whose config section
// exists and is not disabled, or whose token environment variable is set,
// sorted.
func Configured(cfg *config.Config) []string {
	var out []string
	for _, id := range Known() {
		s := section(cfg, id)
		if s != nil {
			if en, ok := s["enabled"].(bool); ok && !en {
				continue
			}
			out = append(out, id)
			continue
		}
		if os.Getenv(kinds[id].tokenEnv) != "" {
			out = append(out, id)
		}
	}
	return out
}

// AccountIDs is a channel's accounts: the default (top-level credentials
// or the environment) when it has one, then channels.<id>.accounts keys,
// sorted.
func AccountIDs(cfg *config.Config, channel string) []string {
	s := section(cfg, channel)
	k := kinds[channel]
	var out []string
	accts, _ := s["accounts"].(map[string]any)
	hasTop := os.Getenv(k.tokenEnv) != ""
	for _, key := range append(k.tokenKeys, "tokenFile") {
		if s[key] != nil {
			hasTop = true
		}
	}
	if hasTop {
		out = append(out, DefaultAccount)
	}
	var named []string
	for id := range accts {
		if id != DefaultAccount || !hasTop {
			named = append(named, id)
		}
	}
	sort.Strings(named)
	return append(out, named...)
}

// DefaultAccountID is channels.<id>.defaultAccount, else "default" when
// the top level has credentials, else the only account.
func DefaultAccountID(cfg *config.Config, channel string) string {
	s := section(cfg, channel)
	if d, _ := s["defaultAccount"].(string); d != "" {
		return d
	}
	ids := AccountIDs(cfg, channel)
	if len(ids) == 0 {
		return DefaultAccount
	}
	return ids[0]
}

// Resolve reads one account's settings: the channel's top level, overlaid
// by channels.<id>.accounts.<accountId>. An empty accountID is the
// channel's default account. A missing token is an error naming the keys
// to set.
func Resolve(cfg *config.Config, channel, accountID string) (Account, error) {
	k, ok := kinds[channel]
	if !ok {
		return Account{}, failure.Errorf(failure.CodeInvalidParams, "unknown channel %q (known: %s)", channel, strings.Join(Known(), ", "))
	}
	if accountID == "" {
		accountID = DefaultAccountID(cfg, channel)
	}
	top := section(cfg, channel)
	merged := map[string]any{}
	for key, v := range top {
		if key != "accounts" {
			merged[key] = v
		}
	}
	accts, _ := top["accounts"].(map[string]any)
	acct, hasAcct := accts[accountID].(map[string]any)
	if accountID != DefaultAccount && !hasAcct {
		return Account{}, failure.Errorf(failure.CodeInvalidParams, "%s: no account %q (configured: %s); check channels.%s.accounts",
			channel, accountID, strings.Join(AccountIDs(cfg, channel), ", "), channel)
	}
	if hasAcct {
		// The top level's token is the default account's; a named account
		// has its own (never another bot's by inheritance).
		if accountID != DefaultAccount {
			for _, kk := range append(k.tokenKeys, "tokenFile") {
				delete(merged, kk)
			}
		}
		for key, v := range acct {
			merged[key] = v
		}
	}
	a := Account{Channel: channel, ID: accountID, APIBase: k.defaultBase, Attempts: 3, MaxDelay: 30 * time.Second,
		MediaMaxBytes: 50 << 20}
	if b, _ := merged["apiBaseUrl"].(string); strings.TrimSpace(b) != "" {
		a.APIBase = strings.TrimRight(strings.TrimSpace(b), "/")
	}
	if r, ok := merged["retry"].(map[string]any); ok {
		if n, ok := r["attempts"].(float64); ok && n >= 1 {
			a.Attempts = int(n)
		}
		if n, ok := r["maxDelayMs"].(float64); ok && n >= 0 {
			a.MaxDelay = time.Duration(n) * time.Millisecond
		}
	}
	if n, ok := merged["mediaMaxMb"].(float64); ok && n > 0 {
		a.MediaMaxBytes = int64(n * (1 << 20))
	}
	a.Enabled = true
	if en, ok := merged["enabled"].(bool); ok && !en {
		a.Enabled = false
	}
	a.DMPolicy = "pairing"
	if p, _ := merged["dmPolicy"].(string); strings.TrimSpace(p) != "" {
		a.DMPolicy = strings.TrimSpace(p)
	}
	if list, ok := merged["allowFrom"].([]any); ok {
		for _, v := range list {
			switch x := v.(type) {
			case string:
				a.AllowFrom = append(a.AllowFrom, x)
			case float64:
				a.AllowFrom = append(a.AllowFrom, strconv.FormatInt(int64(x), 10))
			}
		}
	}
	where := "channels." + channel
	if hasAcct {
		where += ".accounts." + accountID
	}
	for _, key := range k.tokenKeys {
		if t := config.Secret(merged[key]); t != "" {
			a.Token, a.TokenSource = t, "config"
			return a, nil
		}
	}
	if f, _ := merged["tokenFile"].(string); k.tokenFile && f != "" {
		t, err := readTokenFile(f)
		if err != nil {
			return Account{}, failure.Errorf(failure.CodeInvalidParams, "%s: %s.tokenFile: %v", channel, where, err)
		}
		a.Token, a.TokenSource = t, "tokenFile"
		return a, nil
	}
	if accountID == DefaultAccount && k.tokenEnv != "" {
		if t := strings.TrimSpace(os.Getenv(k.tokenEnv)); t != "" {
			a.Token, a.TokenSource = t, "env:"+k.tokenEnv
			return a, nil
		}
	}
	hint := fmt.Sprintf("set %s.%s", where, k.tokenKeys[0])
	if k.tokenFile {
		hint += " or " + where + ".tokenFile"
	}
	if accountID == DefaultAccount {
		hint += " (or the environment variable " + k.tokenEnv + ")"
	}
	return Account{}, failure.Errorf(failure.CodeInvalidParams, "%s account %q has no token: %s", channel, accountID, hint)
}

func readTokenFile(path string) (string, error) {
	if strings.HasPrefix(path, "~/") {
		if h, err := os.UserHomeDir(); err == nil {
			path = h + path[1:]
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxTokenFile+1))
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	if len(b) > maxTokenFile {
		return "", fmt.Errorf("%s is larger than %d bytes", path, maxTokenFile)
	}
	t := strings.TrimSpace(string(b))
	if t == "" {
		return "", fmt.Errorf("%s is empty", path)
	}
	return t, nil
}
