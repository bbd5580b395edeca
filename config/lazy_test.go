package config

import (
	"os"
	"os/exec"
	"testing"
)

// Loading a config and reading keys must not compile the schema: every
// CLI call that finds a config file would pay for it. Run in a fresh
// process so no earlier test has compiled it.
func TestLoadDoesNotCompileSchema(t *testing.T) {
	if os.Getenv("OPENCLAW_LAZY_SCHEMA_CHILD") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestLoadDoesNotCompileSchema$", "-test.count=1")
		cmd.Env = append(os.Environ(), "OPENCLAW_LAZY_SCHEMA_CHILD=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("child: %v\n%s", err, out)
		}
		return
	}
	dir := t.TempDir()
	p := writeFile(t, dir, "openclaw.json", `{tools: {profile: "coding", deny: ["exec"]}, gateway: {port: 18790, auth: {token: "t"}},
		agents: {list: [{id: "ops", workspace: "/w", tools: {deny: ["write"]}}]}}`)
	cfg, err := Load(p, envMap(nil))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.String("tools.profile", "") != "coding" || cfg.Gateway().Port != 18790 || cfg.Gateway().Auth.Token != "t" ||
		cfg.Tools().Profile != "coding" || len(cfg.Agents().List) != 1 || cfg.Agents().List[0].Tools == nil {
		t.Fatalf("sections: gateway %+v tools %+v agents %+v", cfg.Gateway(), cfg.Tools(), cfg.Agents())
	}
	if schemaState.compiled != nil {
		t.Fatal("Load compiled the config schema")
	}
	if !cfg.Valid() || schemaState.compiled == nil {
		t.Fatal("Valid did not validate")
	}
}
