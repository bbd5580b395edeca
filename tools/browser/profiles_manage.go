package browser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/tools"
)

// Profile management: create-profile and delete-profile edit
// browser.profiles in openclaw.json (through config.Edit, the one write
// path, so a concurrent `config set` is never lost); reset-profile frees a
// profile whose browser is stuck. Removed data goes to <state>/browser/.trash
// rather than being deleted, as the original moves it to the OS trash.

var hexColor = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^#[0-9A-Fa-f]{6}$`) }) // built on first use, not in every process's init

// configPath is where create/delete write: the loaded config's file, else
// <state>/openclaw.json.
func configPath(env *tools.Env) string {
	if env.Config != nil && env.Config.Path != "" {
		return env.Config.Path
	}
	return filepath.Join(env.StateDir, "openclaw.json")
}

// usedPorts are the cdpPorts the configured profiles claim.
func usedPorts(doc map[string]any) map[int]bool {
	used := map[int]bool{}
	b, _ := doc["browser"].(map[string]any)
	ps, _ := b["profiles"].(map[string]any)
	for _, v := range ps {
		if m, ok := v.(map[string]any); ok {
			switch n := m["cdpPort"].(type) {
			case float64:
				used[int(n)] = true
			case int:
				used[n] = true
			}
		}
	}
	return used
}

type createProfileParams struct {
	Name        string `json:"name"`
	Color       string `json:"color"`
	CdpURL      string `json:"cdpUrl"`
	UserDataDir string `json:"userDataDir"`
	Driver      string `json:"driver"`
}

// createProfile adds browser.profiles.<name>: a managed profile gets the
// first CDP port of the range no other profile claims; a cdpUrl profile is
// attach-only. The result is the original's shape.
func createProfile(ctx context.Context, env *tools.Env, p createProfileParams) (map[string]any, error) {
	name := strings.TrimSpace(p.Name)
	if err := validProfileName(name); err != nil {
		return nil, err
	}
	c, err := loadConf(env)
	if err != nil {
		return nil, err
	}
	if p.Driver != "" && p.Driver != "openclaw" {
		return nil, tools.Errorf(tools.CodeInvalidParams, "driver %q is not supported here (openclaw only)", p.Driver)
	}
	if p.UserDataDir != "" {
		return nil, tools.Errorf(tools.CodeInvalidParams, "userDataDir needs driver=existing-session, which is not supported here")
	}
	if p.Color != "" && !hexColor().MatchString(p.Color) {
		return nil, tools.Errorf(tools.CodeInvalidParams, "color %q: use #RRGGBB", p.Color)
	}
	if p.CdpURL != "" {
		u := strings.ToLower(p.CdpURL)
		if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "ws://") && !strings.HasPrefix(u, "wss://") {
			return nil, tools.Errorf(tools.CodeInvalidParams, "cdpUrl %q: use http(s):// or ws(s)://", p.CdpURL)
		}
	}
	start := c.CdpPortStart
	if start <= 0 {
		start = portRangeStart
	}
	entry := map[string]any{}
	_, err = config.Edit(ctx, configPath(env), config.EditOptions{}, func(d *config.Draft) error {
		if d.ParseErr != nil {
			return d.ParseErr
		}
		if v, _ := d.Doc["browser"].(map[string]any); v != nil {
			if ps, _ := v["profiles"].(map[string]any); ps != nil && ps[name] != nil {
				return tools.Errorf(tools.CodeInvalidParams, "profile %q already exists", name)
			}
		}
		if p.CdpURL != "" {
			entry["cdpUrl"] = p.CdpURL
		} else {
			used := usedPorts(d.Doc)
			port := 0
			for n := start; n <= start+(portRangeEnd-portRangeStart); n++ {
				if !used[n] {
					port = n
					break
				}
			}
			if port == 0 {
				return tools.Errorf(tools.CodeFailed, "no available CDP ports in %d-%d", start, start+portRangeEnd-portRangeStart)
			}
			entry["cdpPort"] = port
		}
		if p.Color != "" {
			entry["color"] = p.Color
		}
		return config.SetPath(d.Doc, "browser.profiles."+name, entry)
	})
	if err != nil {
		return nil, profileEditErr("create-profile", err)
	}
	out := map[string]any{"ok": true, "profile": name, "transport": "cdp", "cdpPort": nil, "cdpUrl": nil,
		"userDataDir": filepath.Join(env.StateDir, "browser", name, "user-data"), "color": firstNonEmpty(p.Color, c.Color, "#FF4500"),
		"isRemote": false}
	if port, ok := entry["cdpPort"]; ok {
		out["cdpPort"] = port
		out["cdpUrl"] = fmt.Sprintf("http://127.0.0.1:%d", port)
	} else {
		out["cdpUrl"] = p.CdpURL
		out["userDataDir"] = nil
		out["isRemote"] = !loopbackURL(p.CdpURL)
	}
	return out, nil
}

func loopbackURL(u string) bool {
	for _, h := range []string{"127.0.0.1", "localhost", "[::1]"} {
		if strings.Contains(u, "://"+h+":") || strings.Contains(u, "://"+h+"/") || strings.HasSuffix(u, "://"+h) {
			return true
		}
	}
	return false
}

func profileEditErr(what string, err error) error {
	var te *tools.Error
	if errors.As(err, &te) {
		return err
	}
	return tools.Errorf(tools.CodeFailed, "%s: %v", what, err)
}

// deleteProfile stops the profile's browser, removes it from the config
// and moves <state>/browser/<name> to the trash. The default profile
// cannot be deleted.
func deleteProfile(ctx context.Context, env *tools.Env, name string) (map[string]any, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return nil, tools.Errorf(tools.CodeInvalidParams, "delete-profile needs --name")
	}
	if err := validProfileName(name); err != nil {
		return nil, err
	}
	c, err := loadConf(env)
	if err != nil {
		return nil, err
	}
	if name == firstNonEmpty(c.DefaultProfile, defaultProfile) {
		return nil, tools.Errorf(tools.CodeInvalidParams, "cannot delete the default profile %q; change browser.defaultProfile first", name)
	}
	if _, ok := c.Profiles[name]; !ok {
		return nil, tools.Errorf(tools.CodeNotFound, "profile %q not found", name)
	}
	p, err := resolveProfile(env, name)
	if err != nil {
		return nil, err
	}
	if !p.AttachOnly {
		if _, err := p.stop(ctx); err != nil {
			return nil, err
		}
		p.killStale(ctx)
	}
	_, err = config.Edit(ctx, configPath(env), config.EditOptions{}, func(d *config.Draft) error {
		if d.ParseErr != nil {
			return d.ParseErr
		}
		_, err := config.UnsetPath(d.Doc, "browser.profiles."+name)
		return err
	})
	if err != nil {
		return nil, profileEditErr("delete-profile", err)
	}
	deleted := false
	if !p.AttachOnly {
		if _, err := os.Stat(p.Dir); err == nil {
			if _, err := trash(env, p.Dir, name); err != nil {
				return nil, err
			}
			deleted = true
		}
	}
	return map[string]any{"ok": true, "profile": name, "deleted": deleted}, nil
}

// resetProfile frees a stuck profile: it ends every process still running
// on the profile's user data (the recorded browser or a stale one whose
// pid file was lost, which keeps the CDP port and Chromium's singleton
// lock), clears the Singleton* locks and moves the user data to the trash.
func resetProfile(ctx context.Context, env *tools.Env, name string) (map[string]any, error) {
	p, err := resolveProfile(env, name)
	if err != nil {
		return nil, err
	}
	if p.AttachOnly {
		return nil, tools.Errorf(tools.CodeInvalidParams, "reset-profile is only supported for local profiles (profile %q is remote)", p.Name)
	}
	if _, err := p.stop(ctx); err != nil {
		return nil, err
	}
	if err := p.killStale(ctx); err != nil {
		return nil, err
	}
	clearLocks(p.UserDataDir)
	out := map[string]any{"ok": true, "profile": p.Name, "moved": false, "from": p.UserDataDir}
	if _, err := os.Stat(p.UserDataDir); err == nil {
		to, err := trash(env, p.UserDataDir, p.Name+"-user-data")
		if err != nil {
			return nil, err
		}
		out["moved"], out["to"] = true, to
	}
	return out, nil
}

// clearLocks removes Chromium's singleton files, which a killed browser
// leaves behind and which make the next launch hand off to a dead process.
func clearLocks(userDataDir string) {
	for _, lock := range []string{"SingletonLock", "SingletonSocket", "SingletonCookie", "DevToolsActivePort"} {
		_ = os.Remove(filepath.Join(userDataDir, lock))
	}
}

// killStale SIGKILLs every process whose command line names this
// profile's user-data dir and waits for them to go.
func (p *profile) killStale(ctx context.Context) error {
	pids := p.processes()
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	for _, pid := range pids {
		waitExit(ctx, pid, 3*time.Second)
		if alive(pid) {
			return tools.Errorf(tools.CodeFailed, "reset-profile: process %d did not exit", pid)
		}
	}
	return nil
}

// processes lists the pids running on this profile's user data (Linux
// /proc; elsewhere only the recorded browser).
func (p *profile) processes() []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		if pid := readInt(filepath.Join(p.Dir, "pid")); alive(pid) {
			return []int{pid}
		}
		return nil
	}
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		if cmdlineHas(pid, "--user-data-dir="+p.UserDataDir) && alive(pid) {
			out = append(out, pid)
		}
	}
	return out
}

// cmdlineHas reports whether the process's argv holds arg exactly.
func cmdlineHas(pid int, arg string) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return false
	}
	for _, a := range strings.Split(string(b), "\x00") {
		if a == arg {
			return true
		}
	}
	return false
}

// trash moves path into <state>/browser/.trash under a unique name and
// returns where it went.
func trash(env *tools.Env, path, label string) (string, error) {
	dir := filepath.Join(env.StateDir, "browser", ".trash")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("browser trash: %w", err)
	}
	to := filepath.Join(dir, fmt.Sprintf("%s-%d", label, time.Now().UnixNano()))
	if err := os.Rename(path, to); err != nil {
		return "", fmt.Errorf("browser trash: %w", err)
	}
	return to, nil
}
