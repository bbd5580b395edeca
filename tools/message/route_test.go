package message

import (
	"bytes"
	"testing"

	"github.com/tidwall/gjson"
)

func TestRouteFromKey(t *testing.T) {
	for _, tc := range []struct{ key, want string }{
		{"agent:main:telegram:group:-100111", "telegram:-100111"},
		{"agent:main:telegram:group:-100111:topic:9", "telegram:-100111:topic:9"},
		{"agent:ops:telegram:alerts:direct:42", "telegram:42"},
		{"agent:main:discord:channel:123", "discord:channel:123"},
		{"agent:main:discord:direct:77", "discord:user:77"},
		{"agent:main:slack:channel:C1:thread:1700.1", "slack:channel:C1 (thread 1700.1)"},
		{"agent:main:slack:dm:U9", "slack:user:U9"},
		{"agent:main:main", ""},
		{"agent:main:direct:42", ""},
		{"agent:main:cron:job1", ""},
		{"agent:main:whatsapp:direct:+1555", ""},
		{"node-abc", ""},
	} {
		r := routeFromKey(tc.key)
		got := ""
		if r != nil {
			got = r.String()
		}
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.key, got, tc.want)
		}
	}
	if r := routeFromKey("agent:ops:telegram:alerts:direct:42"); r.AccountID != "alerts" {
		t.Errorf("account %q", r.AccountID)
	}
}

func TestRender(t *testing.T) {
	for raw, want := range map[string]string{
		`{"ok":true,"action":"send","channel":"telegram","to":"-100","messageId":"7"}`:                         "Sent via telegram to -100. Message ID: 7\n",
		`{"ok":true,"action":"pin","channel":"slack","messageId":"1.2"}`:                                       "pin 1.2 on slack: ok\n",
		`{"ok":true,"dryRun":true,"action":"send","channel":"discord","to":"channel:1","accountId":"default"}`: "[dry run] discord send → channel:1 (default)\n",
	} {
		var b bytes.Buffer
		if err := render(&b, gjson.Parse(raw)); err != nil || b.String() != want {
			t.Errorf("%s: %q %v", raw, b.String(), err)
		}
	}
}
