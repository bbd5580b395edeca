package config

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The schema is what `config set` and `config get` accept, so every key a
// user is told about or a tool reads must be in it (issue 17, item 17: the
// README named agents.defaults.imageModel and pdfModel, and `config set`
// refused both as unknown).

// repoRoot is the module root above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no go.mod above config/: %v", err)
	}
	return root
}

// sourceScan is what the non-test Go files of the module say about config
// keys: the literal paths passed to the config accessors, and the wire
// method names (which share the README's dotted look: tools.invoke).
type sourceScan struct {
	reads   map[string][]string // path -> where it is read
	methods map[string]bool
}

// accessors are the *config.Config methods taking a path first.
var accessors = map[string]bool{"Bool": true, "String": true, "Int": true, "Get": true, "Decode": true}

// configReceiver names the expressions that hold a *config.Config in this
// code base: cfg, env.Config, s.cfg, ...
func configReceiver(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name == "cfg" || x.Name == "Config"
	case *ast.SelectorExpr:
		return x.Sel.Name == "cfg" || x.Sel.Name == "Config"
	}
	return false
}

func scanSources(t *testing.T, root string) *sourceScan {
	t.Helper()
	type file struct {
		f   *ast.File
		pos token.Position
	}
	fset := token.NewFileSet()
	var files []file
	// consts: "pkg.Name" and "dir\x00Name" -> value, for keys held in a
	// constant (netguard.PolicyKey).
	consts := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || name == "third_party" || name == "testdata" || name == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files = append(files, file{f, fset.Position(f.Pos())})
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if i < len(vs.Values) {
						if s, ok := stringLit(vs.Values[i]); ok {
							consts[f.Name.Name+"."+n.Name] = s
							consts[filepath.Dir(p)+"\x00"+n.Name] = s
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sc := &sourceScan{reads: map[string][]string{}, methods: map[string]bool{}}
	for _, fl := range files {
		dir := filepath.Dir(fl.pos.Filename)
		value := func(e ast.Expr) (string, bool) {
			if s, ok := stringLit(e); ok {
				return s, true
			}
			switch x := e.(type) {
			case *ast.Ident:
				s, ok := consts[dir+"\x00"+x.Name]
				return s, ok
			case *ast.SelectorExpr:
				if pkg, ok := x.X.(*ast.Ident); ok {
					s, ok := consts[pkg.Name+"."+x.Sel.Name]
					return s, ok
				}
			case *ast.BinaryExpr: // "tools.web.search." + id: the literal prefix is read
				if s, ok := stringLit(x.X); ok && x.Op == token.ADD {
					return strings.TrimSuffix(s, "."), true
				}
			}
			return "", false
		}
		ast.Inspect(fl.f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.KeyValueExpr:
				// Method: wire methods; name: a node host's commands
				// (node.invoke's command names: browser.proxy, …).
				if k, ok := x.Key.(*ast.Ident); ok && (k.Name == "Method" || k.Name == "name" && strings.HasSuffix(dir, "nodehost")) {
					if s, ok := value(x.Value); ok {
						sc.methods[s] = true
					}
				}
			case *ast.BasicLit:
				// The gateway's node command tables (tools/nodes/policy.go):
				// every string there is a node command name.
				if strings.HasSuffix(fl.pos.Filename, filepath.Join("tools", "nodes", "policy.go")) {
					if s, ok := stringLit(x); ok {
						sc.methods[s] = true
					}
				}
			case *ast.CallExpr:
				var key ast.Expr
				switch fn := x.Fun.(type) {
				case *ast.Ident:
					// gatewaytool's method table; the nodes family's
					// registration helpers (op, node).
					if (fn.Name == "reg" || fn.Name == "op" || fn.Name == "node") && len(x.Args) > 0 {
						if s, ok := value(x.Args[0]); ok {
							sc.methods[s] = true
						}
					}
				case *ast.SelectorExpr:
					switch {
					case accessors[fn.Sel.Name] && configReceiver(fn.X) && len(x.Args) > 0:
						key = x.Args[0]
					case fn.Sel.Name == "ModelRefs" && len(x.Args) > 1:
						key = x.Args[1]
					}
				}
				if key != nil {
					if s, ok := value(key); ok {
						pos := fset.Position(x.Pos())
						rel, _ := filepath.Rel(root, pos.Filename)
						sc.reads[s] = append(sc.reads[s], rel+":"+strconv.Itoa(pos.Line))
					}
				}
			}
			return true
		})
	}
	return sc
}

func stringLit(e ast.Expr) (string, bool) {
	b, ok := e.(*ast.BasicLit)
	if !ok || b.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(b.Value)
	return s, err == nil
}

// Every literal path the code passes to a config accessor (cfg.Int,
// env.Config.Bool, providers.ModelRefs, ...) is a key of the schema.
func TestEveryKeyTheCodeReadsIsInTheSchema(t *testing.T) {
	sc := scanSources(t, repoRoot(t))
	if len(sc.reads) < 40 {
		t.Fatalf("found only %d config reads in the source: the scan is broken", len(sc.reads))
	}
	for _, want := range []string{"agents.defaults.imageModel", "tools.web.fetch.ssrfPolicy", "gateway.auth.rateLimit.maxAttempts"} {
		if sc.reads[want] == nil {
			t.Errorf("the scan missed %s, which the code reads", want)
		}
	}
	var keys []string
	for k := range sc.reads {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !KnownPath(k) {
			t.Errorf("%s is read by %s but is not in the schema", k, strings.Join(sc.reads[k], ", "))
		}
	}
}

// readmeKeyRe is a backticked dotted name; a `<placeholder>` segment stands
// for any name (a map key), a trailing .* for the whole section.
var readmeKeyRe = regexp.MustCompile("`([a-z][A-Za-z0-9]*(?:\\.(?:[A-Za-z0-9_-]+|<[a-z]+>|\\*))+)`")

// Every config key the README names (a backticked dotted name under one of
// the schema's top-level sections, other than a wire method or a Go
// identifier) is a key of the schema.
func TestEveryKeyTheREADMENamesIsInTheSchema(t *testing.T) {
	root := repoRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := schemaDoc()
	if err != nil {
		t.Fatal(err)
	}
	top, _ := doc["properties"].(map[string]any)
	methods := scanSources(t, root).methods
	if !methods["tools.invoke"] || !methods["update.run"] {
		t.Fatalf("the method scan is broken: %d methods", len(methods))
	}
	seen := map[string]bool{}
	checked := 0
	for _, m := range readmeKeyRe.FindAllSubmatch(readme, -1) {
		key := string(m[1])
		segs := strings.Split(key, ".")
		if seen[key] || top[segs[0]] == nil || methods[key] {
			continue
		}
		seen[key] = true
		goIdent := false
		for _, s := range segs {
			goIdent = goIdent || s[0] >= 'A' && s[0] <= 'Z' // tools.Invoke, tools.Env: Go, not config
		}
		if goIdent {
			continue
		}
		checked++
		if !knownWithPlaceholders(doc, strings.TrimSuffix(key, ".*")) {
			t.Errorf("the README names `%s`, which is not in the schema", key)
		}
	}
	if checked < 20 {
		t.Fatalf("checked only %d README keys: the scan is broken", checked)
	}
}

// knownWithPlaceholders is KnownPath where a <name> segment stands for a
// map key ("x" must be accepted) or for one of the declared keys there
// (tools.web.search.<provider>.baseUrl: some provider has a baseUrl).
func knownWithPlaceholders(root map[string]any, path string) bool {
	segs := strings.Split(path, ".")
	for i, s := range segs {
		if !strings.HasPrefix(s, "<") {
			continue
		}
		prefix, rest := strings.Join(segs[:i], "."), strings.Join(segs[i+1:], ".")
		join := func(k string) string {
			if rest == "" {
				return prefix + "." + k
			}
			return prefix + "." + k + "." + rest
		}
		if knownWithPlaceholders(root, join("x")) {
			return true
		}
		node, ok := schemaNodeAt(prefix)
		if !ok {
			return false
		}
		for _, k := range declaredKeys(root, node) {
			if knownWithPlaceholders(root, join(k)) {
				return true
			}
		}
		return false
	}
	return KnownPath(path)
}
