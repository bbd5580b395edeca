package protocol

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestDecodeRequest(t *testing.T) {
	for _, tc := range []struct {
		in, err, id string
	}{
		{`{"type":"req","id":"1","method":"health"}`, "", "1"},
		{`{"type":"req","id":"1","method":"health","params":{"a":1},"traceparent":"00-x"}`, "", "1"},
		{`not json`, "invalid request frame: frame must be a JSON object", ""},
		{`[1]`, "invalid request frame: frame must be a JSON object", ""},
		{`{"type":"res","id":"1","method":"x"}`, `invalid request frame: type must be "req"`, "1"},
		{`{"type":"req","id":"","method":"x"}`, "invalid request frame: id must be a non-empty string", ""},
		{`{"type":"req","id":5,"method":"x"}`, "invalid request frame: id must be a non-empty string", ""},
		{`{"type":"req","id":"2"}`, "invalid request frame: method must be a non-empty string", "2"},
		{`{"type":"req","id":"2","method":"x","traceparent":"` + strings.Repeat("a", 129) + `"}`, "invalid request frame: traceparent longer than 128 characters", "2"},
		{`{"type":"req","id":"2","method":"x","bogus":1}`, `invalid request frame: unexpected property "bogus"`, "2"},
	} {
		r, err := DecodeRequest([]byte(tc.in))
		got := ""
		if err != nil {
			got = err.Error()
			if !errors.Is(err, ErrBadFrame) {
				t.Errorf("%s: error does not wrap ErrBadFrame", tc.in)
			}
		}
		if got != tc.err {
			t.Errorf("%s: err %q, want %q", tc.in, got, tc.err)
		}
		if tc.id != "" && (r == nil || r.ID != tc.id) {
			t.Errorf("%s: id %v, want %s", tc.in, r, tc.id)
		}
	}
}

func TestNegotiate(t *testing.T) {
	for _, tc := range []struct {
		min, max   int
		role, mode string
		want       int
		ok         bool
	}{
		{4, 4, RoleOperator, ModeCLI, 4, true},
		{3, 5, RoleOperator, ModeCLI, 4, true},
		{3, 3, RoleOperator, ModeCLI, 0, false},
		{3, 3, RoleOperator, ModeProbe, 3, true},
		{3, 3, RoleNode, ModeNode, 3, true},
		{3, 3, RoleNode, ModeCLI, 0, false},
		{5, 6, RoleNode, ModeNode, 0, false},
	} {
		v, ok := Negotiate(tc.min, tc.max, tc.role, tc.mode)
		if v != tc.want || ok != tc.ok {
			t.Errorf("Negotiate(%d,%d,%s,%s) = %d,%t", tc.min, tc.max, tc.role, tc.mode, v, ok)
		}
	}
}

func TestTruncateCloseReason(t *testing.T) {
	s := strings.Repeat("é", 100) // 200 bytes
	got := TruncateCloseReason(s)
	if len(got) > 123 || !strings.HasPrefix(s, got) || len(got)%2 != 0 {
		t.Errorf("len %d", len(got))
	}
}

func TestDeviceAuthPayloads(t *testing.T) {
	f := DeviceAuthFields{DeviceID: "d", ClientID: "node-host", ClientMode: "node", Role: "node",
		Scopes: []string{"a", "b"}, SignedAtMs: 12, Token: "t", Nonce: "n", Platform: " Linux ", DeviceFamily: "MäC"}
	if got := DeviceAuthPayloadV3(f); got != "v3|d|node-host|node|node|a,b|12|t|n|linux|mäc" {
		t.Errorf("v3 = %q", got)
	}
	if got := DeviceAuthPayloadV2(f); got != "v2|d|node-host|node|node|a,b|12|t|n" {
		t.Errorf("v2 = %q", got)
	}
}

func TestEventScope(t *testing.T) {
	for ev, want := range map[string]string{
		"tick": "", "presence": ScopeRead, "config.changed": ScopeRead, "exec.approval.requested": ScopeApprovals,
		"device.pair.requested": ScopePairing, "terminal.data": ScopeAdmin, "session.message": ScopeRead,
		"session.approval": ScopeApprovals,
	} {
		if got, ok := EventScope(ev); !ok || got != want {
			t.Errorf("EventScope(%s) = %q,%t", ev, got, ok)
		}
	}
	if _, ok := EventScope("made.up"); ok {
		t.Errorf("unknown event is known")
	}
}

// FuzzDecodeRequest: never panics; an accepted frame satisfies the
// envelope rules and survives a re-encode.
func FuzzDecodeRequest(f *testing.F) {
	for _, s := range []string{
		`{"type":"req","id":"1","method":"health"}`, `{"type":"req","id":"1","method":"x","params":null}`,
		`{}`, `null`, `{"type":"req","id":"1","method":"x","expectedProfileId":""}`, `{"id":{"a":1}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := DecodeRequest(data)
		if err != nil {
			if !errors.Is(err, ErrBadFrame) {
				t.Fatalf("error does not wrap ErrBadFrame: %v", err)
			}
			return
		}
		if r.Type != TypeReq || r.ID == "" || r.Method == "" || len(r.Traceparent) > 128 {
			t.Fatalf("accepted a bad frame: %+v", r)
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		r2, err := DecodeRequest(b)
		if err != nil || r2.ID != r.ID || r2.Method != r.Method {
			t.Fatalf("round trip: %v %+v", err, r2)
		}
	})
}
