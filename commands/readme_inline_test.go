package commands

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every `openclaw …` the README writes inline names a real command and
// real flags. The tour runs (readme_tour_test.go); these are checked
// against the binary's help instead, since many need a browser, a model or
// a gateway to run. A placeholder (FILE, <id>, …) ends the command words.
func TestReadmeInlineCommandsExist(t *testing.T) {
	exe, err := exec.LookPath("openclaw")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	help := map[string]string{}
	helpOf := func(path []string) string {
		key := strings.Join(path, " ")
		if h, ok := help[key]; ok {
			return h
		}
		cmd := exec.Command(exe, append(append([]string{}, path...), "--help")...)
		cmd.Env = append(os.Environ(), "HOME="+home, "OPENCLAW_STATE_DIR="+filepath.Join(home, "state"), "NO_COLOR=1")
		out, _ := cmd.Output()
		h := string(out)
		if !strings.Contains(h, "\n   openclaw "+key+" - ") && key != "" {
			h = "" // not a command: help fell back to another one
		}
		help[key] = h
		return h
	}
	global := helpOf(nil)
	word := regexp.MustCompile(`^[a-z][a-z0-9.-]*$`)
	flag := regexp.MustCompile(`--[a-z][a-z0-9-]*`)
	illustrative := map[string]bool{"openclaw family verb": true} // the naming rule, not a command
	checked := 0
	for _, span := range regexp.MustCompile("`(openclaw [^`]*)`").FindAllStringSubmatch(string(b), -1) {
		line := span[1]
		if illustrative[line] {
			continue
		}
		// "a | b | c": alternatives after the first share its command path.
		forms := strings.Split(strings.TrimPrefix(line, "openclaw "), " | ")
		var base []string
		for fi, form := range forms {
			words := strings.Fields(form)
			if fi == 0 && len(words) > 0 && words[0] == "help" {
				words = words[1:] // `openclaw help X` is X's help: X must be a command
			}
			path := []string{}
			if fi > 0 {
				path = append(path, base...)
			}
			i := 0
			for ; i < len(words); i++ {
				alts := strings.Split(words[i], "|")
				ok := true
				for _, w := range alts {
					if !word.MatchString(w) || helpOf(append(append([]string{}, path...), w)) == "" {
						ok = false
						break
					}
				}
				if !ok {
					// A command with subcommands takes no plain word but one of them.
					if word.MatchString(alts[0]) && strings.Contains(helpOf(path), "\nCOMMANDS:") {
						t.Errorf("README: `%s`: %q is not a subcommand of `openclaw %s`", line, words[i], strings.Join(path, " "))
					}
					break
				}
				path = append(path, alts[0])
			}
			if fi == 0 {
				if len(path) == 0 {
					if i < len(words) && word.MatchString(words[i]) {
						t.Errorf("README: `%s`: %q is not an openclaw command", line, words[i])
					}
					continue
				}
				base = path[:len(path)-1]
			}
			h := helpOf(path)
			for _, w := range words[i:] {
				for _, f := range flag.FindAllString(w, -1) {
					if !strings.Contains(h, "   "+f+" ") && !strings.Contains(h, "   "+f+",") &&
						!strings.Contains(h, ", "+f+" ") && !strings.Contains(global, "   "+f+" ") {
						t.Errorf("README: `%s`: `openclaw %s` has no %s flag", line, strings.Join(path, " "), f)
					}
				}
			}
			checked++
		}
	}
	// The browser section writes its actions without `openclaw browser`.
	if i := strings.Index(string(b), "\n### Browser"); i >= 0 {
		sec := string(b)[i:]
		if j := strings.Index(sec[1:], "\n### "); j >= 0 {
			sec = sec[:j+1]
		}
		for _, span := range regexp.MustCompile("`([a-z][a-z-]*)( [^`]*)?`").FindAllStringSubmatch(sec, -1) {
			path := []string{"browser", span[1]}
			h := helpOf(path)
			if h == "" {
				continue // not an action: a key or a result field
			}
			for _, f := range flag.FindAllString(span[2], -1) {
				if !strings.Contains(h, "   "+f+" ") && !strings.Contains(h, "   "+f+",") && !strings.Contains(h, ", "+f+" ") {
					t.Errorf("README browser section: `%s%s`: `openclaw browser %s` has no %s flag", span[1], span[2], span[1], f)
				}
			}
			checked++
		}
	}
	if checked < 30 {
		t.Fatalf("checked only %d inline commands; is the README there?", checked)
	}
}
