package sessions

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/store"
	"github.com/openclaw-go/openclaw/tools"
)

func family() store.Family {
	f := store.Family{Name: "sessions"}
	for _, m := range migrations {
		f.Migrations = append(f.Migrations, store.Migration{Version: m.Version, Name: m.Name, Up: m.Up})
	}
	return f
}

// openStore is the family's store on a real SQLite database in dir.
func openStore(t testing.TB, dir string) (*Service, *store.Store) {
	t.Helper()
	st, err := store.Open(context.Background(), dir, family())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return NewStore(st.DB()), st
}

func loadConfig(t testing.TB, dir, cfgJSON string) *config.Config {
	t.Helper()
	if cfgJSON == "" {
		return config.Empty()
	}
	p := filepath.Join(dir, "openclaw.json")
	if err := os.WriteFile(p, []byte(cfgJSON), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(p, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// invoke runs an action through the one door with env, returning its JSON.
func invoke(t testing.TB, env *tools.Env, id string, params any) gjson.Result {
	t.Helper()
	b, _ := json.Marshal(params)
	out, err := tools.Invoke(context.Background(), env, tools.Call{ID: id, Args: b})
	if err != nil {
		t.Fatalf("%s %s: %v", id, b, err)
	}
	return gjson.ParseBytes(out)
}

func textMsg(role, text string) Message {
	return Message{Role: role, Content: []ContentBlock{{Type: "text", Text: text}}}
}
