package commands

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/tools"
)

// configureSections are the original's `openclaw configure --section`
// values; only web exists here so far.
var configureSections = []struct{ name, what string }{
	{"workspace", "agent workspace directory"},
	{"model", "model provider and default model"},
	{"web", "web_search provider and key, web_fetch"},
	{"gateway", "gateway port, bind and auth"},
	{"channels", "chat channels"},
	{"skills", "skills"},
	{"daemon", "background service"},
	{"health", "health checks"},
}

const webNote = "Web search lets your agent look things up online using the `web_search` tool.\n" +
	"Choose a provider and paste your API key."

// configureCommand is `openclaw configure`: guided setup of one config
// section, interactive on a terminal, or driven by flags with --yes.
func (r *runtime) configureCommand() *cli.Command {
	return &cli.Command{
		Name:  "configure",
		Usage: "guided setup of a config section (web: search provider and key, web_fetch)",
		Description: "Without --section, lists the sections. `--section web` asks (on a terminal) whether to enable\n" +
			"web_search, which provider to use, its API key (typed hidden), tests the key, and whether to\n" +
			"enable web_fetch; then writes openclaw.json through the one config write path (atomic, .bak).\n" +
			"In scripts or when piped, pass the answers as flags with --yes.\n\n" +
			"EXAMPLES:\n   openclaw configure --section web\n" +
			"   openclaw configure --section web --provider brave --api-key \"$BRAVE_API_KEY\" --yes",
		Flags: append(outputFlags(),
			&cli.StringFlag{Name: "section", Usage: "section to configure (web)"},
			&cli.StringFlag{Name: "provider", Usage: "web search provider: brave, gemini, perplexity, grok, kimi"},
			&cli.StringFlag{Name: "api-key", Usage: "the provider's API key (blank keeps the current one or the environment's)"},
			&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "no prompts: take the answers from flags"},
			&cli.BoolFlag{Name: "disable-search", Usage: "with --yes: turn web_search off"},
			&cli.BoolFlag{Name: "disable-fetch", Usage: "with --yes: turn web_fetch off"},
			&cli.BoolFlag{Name: "test", Usage: "with --yes: run one search with the key before saving"},
		),
		Action: r.configure,
	}
}

func (r *runtime) configure(c *cli.Context) error {
	section := c.String("section")
	if section == "" {
		return r.emit(c, renderSections, mustJSON(sectionList()))
	}
	if section != "web" {
		for _, s := range configureSections {
			if s.name == section {
				return tools.Errorf(tools.CodeUsage, "configure --section %s is coming; available now: web", section)
			}
		}
		return tools.Errorf(tools.CodeUsage, "unknown section %q (sections: %s)", section, sectionNames())
	}
	p, err := r.Paths(c)
	if err != nil {
		return err
	}
	cfg, err := config.Load(p.ConfigPath, r.getenv)
	if err != nil {
		return err
	}
	var ans webAnswers
	if c.Bool("yes") || c.IsSet("provider") || c.IsSet("api-key") {
		ans, err = r.webFromFlags(c, cfg)
	} else {
		f, ok := r.stdin.(*os.File)
		if !ok || !term.IsTerminal(int(f.Fd())) {
			return tools.Errorf(tools.CodeUsage, "configure needs a terminal to ask; in scripts pass --provider P --api-key KEY --yes")
		}
		ans, err = r.webInteractive(c.Context, f, cfg)
	}
	if err != nil {
		return err
	}
	if err := r.editConfig(c, "tools.web", ans.apply); err != nil {
		return err
	}
	fmt.Fprintln(r.stderr, "Configure complete.")
	return nil
}

// webAnswers are the web section's choices, written in one edit.
type webAnswers struct {
	search, fetch bool
	provider      *tools.SearchProvider
	key           string // "" keeps what is stored
}

func (a webAnswers) apply(d *config.Draft) error {
	set := func(path string, v any) error {
		if err := config.SetPath(d.Doc, path, v); err != nil {
			return tools.Errorf(tools.CodeFailed, "configure: %s: %v", path, err)
		}
		return nil
	}
	if err := set("tools.web.search.enabled", a.search); err != nil {
		return err
	}
	if a.provider != nil {
		if err := set("tools.web.search.provider", a.provider.ID); err != nil {
			return err
		}
		if a.key != "" {
			if err := set(a.provider.KeyPath, a.key); err != nil {
				return err
			}
		}
	}
	return set("tools.web.fetch.enabled", a.fetch)
}

func (r *runtime) webFromFlags(c *cli.Context, cfg *config.Config) (webAnswers, error) {
	if !c.Bool("yes") {
		return webAnswers{}, tools.Errorf(tools.CodeUsage, "configure without prompts needs --yes (with --provider and --api-key)")
	}
	a := webAnswers{search: !c.Bool("disable-search"), fetch: !c.Bool("disable-fetch"), key: strings.TrimSpace(c.String("api-key"))}
	id := c.String("provider")
	if id == "" {
		id = cfg.String("tools.web.search.provider", "brave")
	}
	a.provider = tools.LookupSearchProvider(id)
	if a.provider == nil {
		return a, tools.Errorf(tools.CodeUsage, "unknown provider %q (one of: %s)", id, providerIDs())
	}
	if a.search && a.key == "" {
		if k, _ := a.provider.Key(cfg); k == "" {
			fmt.Fprintf(r.stderr, "%s\n", noKeyNote(a.provider))
		}
	}
	if c.Bool("test") && a.key != "" {
		if n, err := r.testKey(c.Context, cfg, a.provider, a.key); err != nil {
			return a, fmt.Errorf("the key did not work, nothing saved: %w", err)
		} else {
			fmt.Fprintf(r.stderr, "Key works: %s answered (%s).\n", a.provider.Label, n)
		}
	}
	return a, nil
}

func noKeyNote(p *tools.SearchProvider) string {
	return fmt.Sprintf("No key stored yet — web_search won't work until a key is available. Store your %s API key here or set %s in the gateway environment. Get your API key at: %s",
		p.Label, strings.Join(p.EnvKeys, " or "), p.Signup)
}

// webInteractive asks the section's questions on the terminal.
func (r *runtime) webInteractive(ctx context.Context, in *os.File, cfg *config.Config) (webAnswers, error) {
	w := r.stderr
	pr := prompter{in: in, w: w}
	fmt.Fprintf(w, "%s\n\n", webNote)
	hasKey := false
	for _, p := range tools.SearchProviders() {
		if k, _ := p.Key(cfg); k != "" {
			hasKey = true
		}
	}
	var a webAnswers
	var err error
	if a.search, err = pr.confirm("Enable web_search?", cfg.Bool("tools.web.search.enabled", hasKey)); err != nil {
		return a, err
	}
	if a.search {
		list := tools.SearchProviders()
		initial := 0
		stored := cfg.String("tools.web.search.provider", "")
		for i, p := range list {
			if k, _ := p.Key(cfg); k != "" && stored == "" && initial == 0 {
				initial = i
			}
			if p.ID == stored {
				initial = i
			}
		}
		fmt.Fprintln(w, "Choose web search provider:")
		for i, p := range list {
			hint := ""
			if k, _ := p.Key(cfg); k != "" {
				hint = " · configured"
			}
			fmt.Fprintf(w, "  %d) %s (%s)%s\n", i+1, p.Label, p.ID, hint)
		}
		for a.provider == nil {
			s, err := pr.line(fmt.Sprintf("Provider [%d]: ", initial+1))
			if err != nil {
				return a, err
			}
			switch n, convErr := strconv.Atoi(s); {
			case s == "":
				a.provider = list[initial]
			case convErr == nil && n >= 1 && n <= len(list):
				a.provider = list[n-1]
			default:
				if a.provider = tools.LookupSearchProvider(s); a.provider == nil {
					fmt.Fprintf(w, "Type a number from 1 to %d or a provider name.\n", len(list))
				}
			}
		}
		p := a.provider
		suffix := "(paste it here; leave blank to use " + strings.Join(p.EnvKeys, " or ") + ")"
		if p.ConfigKey(cfg) != "" {
			suffix = "(leave blank to keep current)"
		} else if env, _ := p.EnvKey(); env != "" {
			suffix = "(leave blank to keep current or use " + env + ")"
		}
		key, err := pr.secret(fmt.Sprintf("%s API key %s [%s]: ", p.Label, suffix, p.Placeholder))
		if err != nil {
			return a, err
		}
		a.key = strings.TrimSpace(key)
		if a.key == "" {
			if k, _ := p.Key(cfg); k == "" {
				fmt.Fprintf(w, "%s\n", noKeyNote(p))
			}
		} else if test, err := pr.confirm("Test the key now?", true); err != nil {
			return a, err
		} else if test {
			if n, err := r.testKey(ctx, cfg, p, a.key); err != nil {
				fmt.Fprintf(w, "The key did not work: %v\n", err)
				keep, err := pr.confirm("Save it anyway?", false)
				if err != nil {
					return a, err
				}
				if !keep {
					return a, tools.Errorf(tools.CodeFailed, "configure: nothing saved (the %s key did not work)", p.Label)
				}
			} else {
				fmt.Fprintf(w, "Key works: %s answered (%s).\n", p.Label, n)
			}
		}
	}
	if a.fetch, err = pr.confirm("Enable web_fetch (keyless HTTP fetch)?", cfg.Bool("tools.web.fetch.enabled", true)); err != nil {
		return a, err
	}
	return a, nil
}

// testKey runs one real search with the new key (and the configured base
// URL, if any) and says what came back.
func (r *runtime) testKey(ctx context.Context, cfg *config.Config, p *tools.SearchProvider, key string) (string, error) {
	doc := map[string]any{}
	if b, err := json.Marshal(cfg.Doc); err == nil {
		_ = json.Unmarshal(b, &doc)
	}
	if err := config.SetPath(doc, "tools.web.search.provider", p.ID); err != nil {
		return "", err
	}
	if err := config.SetPath(doc, p.KeyPath, key); err != nil {
		return "", err
	}
	if err := config.SetPath(doc, "tools.web.search.cacheTtlMinutes", 0); err != nil {
		return "", err
	}
	test := config.Empty()
	test.Doc = doc
	out, err := tools.Invoke(ctx, &tools.Env{Config: test}, tools.Call{ID: "web_search", Args: json.RawMessage(`{"query":"OpenClaw","count":1}`)})
	if err != nil {
		return "", err
	}
	d := gjson.GetBytes(out, "details")
	if d.Get("results").Exists() {
		return fmt.Sprintf("%d result(s)", len(d.Get("results").Array())), nil
	}
	return fmt.Sprintf("an answer with %d citation(s)", len(d.Get("citations").Array())), nil
}

// prompter asks on a terminal: lines echoed, secrets hidden.
type prompter struct {
	in *os.File
	w  io.Writer
}

// line reads one line byte by byte (no buffering past the newline, so a
// following hidden read starts clean).
func (p prompter) line(prompt string) (string, error) {
	fmt.Fprint(p.w, prompt)
	s, err := readLineRaw(p.in)
	if errors.Is(err, io.EOF) {
		return "", tools.Errorf(tools.CodeInterrupted, "configure: input ended; nothing saved")
	}
	return strings.TrimSpace(s), err
}

// readLineRaw reads one line byte by byte: nothing is buffered past the
// newline, so the next prompt's read starts clean.
func readLineRaw(in io.Reader) (string, error) {
	var b []byte
	one := make([]byte, 1)
	for {
		n, err := in.Read(one)
		if n == 1 {
			if one[0] == '\n' {
				return strings.TrimSuffix(string(b), "\r"), nil
			}
			b = append(b, one[0])
		}
		if err != nil {
			return "", err
		}
	}
}

func (p prompter) confirm(q string, def bool) (bool, error) {
	hint := "Y/n"
	if !def {
		hint = "y/N"
	}
	for {
		s, err := p.line(fmt.Sprintf("%s (%s) ", q, hint))
		if err != nil {
			return false, err
		}
		switch strings.ToLower(s) {
		case "":
			return def, nil
		case "y", "yes":
			return true, nil
		case "n", "no":
			return false, nil
		}
		fmt.Fprintln(p.w, "Answer y or n.")
	}
}

// secret reads a line with echo off.
func (p prompter) secret(prompt string) (string, error) {
	s, err := readHidden(p.in, func() { fmt.Fprint(p.w, prompt) })
	fmt.Fprintln(p.w)
	if err != nil {
		if errors.Is(err, io.EOF) {
			return "", tools.Errorf(tools.CodeInterrupted, "configure: input ended; nothing saved")
		}
		return "", fmt.Errorf("configure: read key: %w", err)
	}
	return strings.TrimSuffix(s, "\r"), nil
}

func sectionList() map[string]any {
	var list []map[string]any
	for _, s := range configureSections {
		status := "coming"
		if s.name == "web" {
			status = "available"
		}
		list = append(list, map[string]any{"section": s.name, "description": s.what, "status": status})
	}
	return map[string]any{"sections": list}
}

func renderSections(w io.Writer, v gjson.Result) error {
	fmt.Fprintln(w, "Sections (openclaw configure --section NAME):")
	for _, s := range v.Get("sections").Array() {
		fmt.Fprintf(w, "  %-10s %-42s %s\n", s.Get("section").String(), s.Get("description").String(), s.Get("status").String())
	}
	return nil
}

func sectionNames() string {
	n := make([]string, len(configureSections))
	for i, s := range configureSections {
		n[i] = s.name
	}
	return strings.Join(n, ", ")
}

func providerIDs() string {
	var ids []string
	for _, p := range tools.SearchProviders() {
		ids = append(ids, p.ID)
	}
	return strings.Join(ids, ", ")
}
