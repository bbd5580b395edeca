package gateway

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"

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
	doc := map[string]any{}
	raw, err := os.ReadFile(path)
	switch {
	case err == nil:
		v, perr := config.ParseJSON5(raw)
		if perr != nil {
			return "", nil, fmt.Errorf("gateway auth: %w", perr)
		}
		m, ok := v.(map[string]any)
		if !ok {
			return "", nil, fmt.Errorf("gateway auth: %s is not a JSON object", path)
		}
		doc = m
	case errors.Is(err, fs.ErrNotExist):
	default:
		return "", nil, fmt.Errorf("gateway auth: read %s: %w", path, err)
	}
	auth, _ := lookup(doc, "gateway", "auth").(map[string]any)
	if _, set := auth["token"]; set {
		return "", nil, fmt.Errorf("gateway auth: gateway.auth.token in %s is set but empty or unresolved; set a token there (or pass --token, or --auth none)", path)
	}
	tok, err := newToken()
	if err != nil {
		return "", nil, err
	}
	if _, set := auth["mode"]; !set {
		if err := config.SetPath(doc, "gateway.auth.mode", AuthToken); err != nil {
			return "", nil, err
		}
	}
	if err := config.SetPath(doc, "gateway.auth.token", tok); err != nil {
		return "", nil, err
	}
	// TODO(config.Edit): switch to the config package's locked edit once it
	// lands; Write is already temp file + fsync + rename, mode 0600.
	if _, err := config.Write(path, doc); err != nil {
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
