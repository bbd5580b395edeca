package gateway

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/openclaw-go/openclaw/config"
)

// newToken is a fresh shared secret in the original's format (24 random
// bytes, hex: `openclaw doctor --generate-gateway-token`).
func newToken() (string, error) {
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("generate gateway token: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// storeGeneratedToken is first-start onboarding: with no secret configured
// anywhere the gateway must not run open, so it generates a token and
// stores it where the original's onboarding does (gateway.auth.token in the
// config file, written atomically, mode 0600). The CLI's local target reads
// gateway.auth.token, so local commands keep working with no flags. It
// returns the token and the config re-read from disk.
//
// A gateway.auth.token key that is present but unusable (empty, or a
// SecretRef this gateway cannot resolve) is not overwritten: that is the
// user's configuration, and it is an error.
func storeGeneratedToken(paths config.Paths, getenv func(string) string) (string, *config.Config, error) {
	path := paths.ConfigPath
	if path == "" {
		return "", nil, errors.New("gateway auth: no token configured and no config file to store a generated one in (use --token, OPENCLAW_GATEWAY_TOKEN, or --auth none)")
	}
	// One locked read-modify-write (config.Edit): a concurrent
	// `openclaw config set` cannot be lost, nor lose the token.
	var tok string
	_, err := config.Edit(context.Background(), path, config.EditOptions{Getenv: getenv}, func(d *config.Draft) error {
		if d.ParseErr != nil {
			return fmt.Errorf("gateway auth: %w", d.ParseErr)
		}
		auth, _ := lookup(d.Doc, "gateway", "auth").(map[string]any)
		if _, set := auth["token"]; set {
			return fmt.Errorf("gateway auth: gateway.auth.token in %s is set but empty or unresolved; set a token there (or pass --token, or --auth none)", path)
		}
		t, err := newToken()
		if err != nil {
			return err
		}
		tok = t
		if _, set := auth["mode"]; !set {
			if err := config.SetPath(d.Doc, "gateway.auth.mode", AuthToken); err != nil {
				return err
			}
		}
		return config.SetPath(d.Doc, "gateway.auth.token", tok)
	})
	if err != nil {
		var inv *config.InvalidError
		if errors.As(err, &inv) || strings.HasPrefix(err.Error(), "gateway auth:") {
			return "", nil, err
		}
		return "", nil, fmt.Errorf("gateway auth: store generated token: %w", err)
	}
	cfg, err := loadConfig(paths, getenv)
	if err != nil {
		return "", nil, err
	}
	if cfg.String("gateway.auth.token", "") != tok {
		return "", nil, fmt.Errorf("gateway auth: the generated token did not read back from %s", path)
	}
	return tok, cfg, nil
}

// lookup walks nested objects; nil when any step is missing.
func lookup(doc map[string]any, keys ...string) any {
	var cur any = doc
	for _, k := range keys {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[k]
	}
	return cur
}

// AuthMode is the auth mode in force (none, token or password).
func (s *Server) AuthMode() string { return s.auth.Load().mode }

// AuthSource says where the secret in force comes from, without the
// secret: the config key and file, or the environment.
func (s *Server) AuthSource() string {
	a := s.auth.Load()
	key, env := "gateway.auth.token", "OPENCLAW_GATEWAY_TOKEN"
	val := a.token
	if a.mode == AuthPassword {
		key, env, val = "gateway.auth.password", "OPENCLAW_GATEWAY_PASSWORD", a.password
	}
	if val != "" && s.Config().String(key, "") == val && s.paths.ConfigPath != "" {
		return key + " in " + s.paths.ConfigPath + " (openclaw config get " + key + ")"
	}
	return env
}
