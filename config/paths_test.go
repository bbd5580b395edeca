package config

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestResolvePaths(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		profile string
		dev     bool
		want    Paths
		wantErr string
	}{
		{
			name: "defaults",
			env:  map[string]string{"HOME": "/home/u"},
			want: Paths{Home: "/home/u", StateDir: "/home/u/.openclaw", ConfigPath: "/home/u/.openclaw/openclaw.json"},
		},
		{
			name: "OPENCLAW_HOME replaces HOME",
			env:  map[string]string{"HOME": "/home/u", "OPENCLAW_HOME": "/srv/oc"},
			want: Paths{Home: "/srv/oc", StateDir: "/srv/oc/.openclaw", ConfigPath: "/srv/oc/.openclaw/openclaw.json"},
		},
		{
			name: "OPENCLAW_HOME with tilde",
			env:  map[string]string{"HOME": "/home/u", "OPENCLAW_HOME": "~/alt"},
			want: Paths{Home: "/home/u/alt", StateDir: "/home/u/alt/.openclaw", ConfigPath: "/home/u/alt/.openclaw/openclaw.json"},
		},
		{
			name: "state dir override",
			env:  map[string]string{"HOME": "/home/u", "OPENCLAW_STATE_DIR": "/var/oc"},
			want: Paths{Home: "/home/u", StateDir: "/var/oc", ConfigPath: "/var/oc/openclaw.json"},
		},
		{
			name: "config path override",
			env:  map[string]string{"HOME": "/home/u", "OPENCLAW_CONFIG_PATH": "~/cfg/oc.json5"},
			want: Paths{Home: "/home/u", StateDir: "/home/u/.openclaw", ConfigPath: "/home/u/cfg/oc.json5"},
		},
		{
			name:    "profile flag",
			env:     map[string]string{"HOME": "/home/u"},
			profile: "work",
			want:    Paths{Home: "/home/u", StateDir: "/home/u/.openclaw-work", ConfigPath: "/home/u/.openclaw-work/openclaw.json", Profile: "work"},
		},
		{
			name: "profile env",
			env:  map[string]string{"HOME": "/home/u", "OPENCLAW_PROFILE": "lab"},
			want: Paths{Home: "/home/u", StateDir: "/home/u/.openclaw-lab", ConfigPath: "/home/u/.openclaw-lab/openclaw.json", Profile: "lab"},
		},
		{
			name:    "profile flag beats env",
			env:     map[string]string{"HOME": "/home/u", "OPENCLAW_PROFILE": "lab"},
			profile: "work",
			want:    Paths{Home: "/home/u", StateDir: "/home/u/.openclaw-work", ConfigPath: "/home/u/.openclaw-work/openclaw.json", Profile: "work"},
		},
		{
			name:    "default profile means none",
			env:     map[string]string{"HOME": "/home/u"},
			profile: "default",
			want:    Paths{Home: "/home/u", StateDir: "/home/u/.openclaw", ConfigPath: "/home/u/.openclaw/openclaw.json"},
		},
		{
			name: "dev",
			env:  map[string]string{"HOME": "/home/u", "OPENCLAW_PROFILE": "lab"},
			dev:  true,
			want: Paths{Home: "/home/u", StateDir: "/home/u/.openclaw-dev", ConfigPath: "/home/u/.openclaw-dev/openclaw.json", Profile: "dev", Dev: true},
		},
		{
			name: "profile dev from env is dev",
			env:  map[string]string{"HOME": "/home/u", "OPENCLAW_PROFILE": "dev"},
			want: Paths{Home: "/home/u", StateDir: "/home/u/.openclaw-dev", ConfigPath: "/home/u/.openclaw-dev/openclaw.json", Profile: "dev", Dev: true},
		},
		{
			name: "state dir beats profile; config follows state dir",
			env:  map[string]string{"HOME": "/home/u", "OPENCLAW_STATE_DIR": "/var/oc"},
			dev:  true,
			want: Paths{Home: "/home/u", StateDir: "/var/oc", ConfigPath: "/var/oc/openclaw.json", Profile: "dev", Dev: true},
		},
		{
			name:    "dev and profile conflict",
			env:     map[string]string{"HOME": "/home/u"},
			profile: "work",
			dev:     true,
			wantErr: "Cannot combine --dev with --profile",
		},
		{
			name:    "bad profile name",
			env:     map[string]string{"HOME": "/home/u"},
			profile: "../etc",
			wantErr: "Invalid --profile",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ResolvePaths(envMap(tt.env), tt.profile, tt.dev)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.want.Home = filepath.FromSlash(tt.want.Home)
			if got != tt.want {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}
