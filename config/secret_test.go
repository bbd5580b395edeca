package config

import "testing"

func TestSecret(t *testing.T) {
	t.Setenv("OPENCLAW_TEST_SECRET", " from-env \n")
	for _, c := range []struct {
		in   any
		want string
	}{
		{" plain ", "plain"},
		{map[string]any{"source": "env", "id": "OPENCLAW_TEST_SECRET"}, "from-env"},
		{map[string]any{"source": "env", "id": "OPENCLAW_TEST_SECRET_UNSET"}, ""},
		{map[string]any{"source": "file", "id": "OPENCLAW_TEST_SECRET"}, ""},
		{map[string]any{"source": "env"}, ""},
		{42.0, ""},
		{nil, ""},
	} {
		if got := Secret(c.in); got != c.want {
			t.Errorf("Secret(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}
