package policy

import "testing"

func TestUnwrap(t *testing.T) {
	trusted := func(name string) bool { return name[0] != '.' } // ./env is a local script
	for _, c := range []struct {
		line    string
		program string // the word Unwrap lands on
		refused string
	}{
		{"make --version", "make", ""},
		{"env FOO=1 make --version", "make", ""},
		{"env -i -u HOME -C /tmp FOO=1 make", "make", ""},
		{"env -- make", "make", ""},
		{"env", "env", ""},
		{"env bash -c 'touch x'", "bash", "bash"},
		{"env LD_PRELOAD=/tmp/x.so make", "env", "env"},
		{"env ld_preload=/tmp/x.so make", "env", "env"},
		{"env BASH_FUNC_make%%=x make", "env", "env"},
		{"env PATH=/tmp make", "env", "env"},
		{"env -S 'sh -c x'", "env", "env"},
		{"env $X make", "env", "env"},
		{"nice make", "make", ""},
		{"nice -n 5 make", "make", ""},
		{"nice -10 make", "make", ""},
		{"nice --adjustment=5 make", "make", ""},
		{"nohup make", "make", ""},
		{"timeout 5 make", "make", ""},
		{"timeout -s KILL -k 1 5 make", "make", ""},
		{"timeout --signal=KILL 5s make", "make", ""},
		{"timeout --preserve-status 5 nice env A=1 make", "make", ""},
		{"stdbuf -oL make", "make", ""},
		{"stdbuf -o L -e 0 make", "make", ""},
		{"setsid make", "make", ""},
		{"command make", "make", ""},
		{"command -p make", "make", ""},
		{"exec -a name make", "make", ""},
		{"sudo make", "sudo", "sudo"},
		{"xargs rm", "xargs", "xargs"},
		{"sh -c 'rm -rf x'", "sh", "sh"},
		{"bash script.sh", "bash", "bash"},
		{"/usr/bin/bash -c x", "/usr/bin/bash", "bash"},
		{"nice sudo make", "sudo", "sudo"},
		{"timeout --bogus 5 make", "timeout", "timeout"},
		{"nice --help", "nice", "nice"},
		{"./env make", "./env", ""},
		{"env env env env env env env env env make", "env", "wrapper"},
	} {
		segs, ok := AnalyzeWords(c.line)
		if !ok {
			t.Fatalf("%q does not parse", c.line)
		}
		start, refused := Unwrap(segs[0], trusted)
		if got := segs[0].Argv[start]; got != c.program || refused != c.refused {
			t.Errorf("%q: program %q refused %q, want %q %q", c.line, got, refused, c.program, c.refused)
		}
	}
}
