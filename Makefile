# openclaw (Go) — build, test, benchmark, docs.
GO      ?= go
BIN     := bin/openclaw
VERSION ?= 2026.9.6-go+$(shell git rev-parse --short HEAD 2>/dev/null || echo dev)
PREFIX  ?= $(HOME)/.local
LDFLAGS := -s -w -X github.com/openclaw-go/openclaw/commands.Version=$(VERSION)

.PHONY: build install run test race bench docs lint fuzz interop mutate clean

# The linker's output file starts ~1 ms slower on every run than a plain copy
# of it while it sits in the page cache, so a copy is renamed into place
# (a rename, so a running bin/openclaw is never written over).
build: ## static binary in bin/openclaw
	CGO_ENABLED=0 $(GO) build -trimpath -tags urfave_cli_no_docs -ldflags '$(LDFLAGS)' -o $(BIN).tmp ./cmd/openclaw
	cp $(BIN).tmp $(BIN).new && rm -f $(BIN).tmp && mv -f $(BIN).new $(BIN)

install: build ## install bin/openclaw to $(PREFIX)/bin and the man pages to $(PREFIX)/share/man/man1 (PREFIX=~/.local)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/openclaw
	install -m 0644 man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/

run: build ## build, then run the gateway on its defaults (ws://127.0.0.1:18789, loopback only)
	$(BIN) serve

# -timeout: Go's default is 10 minutes per package; on a loaded 2-core
# machine (the project's CI kind) commands, tools/browser and gateway ran
# past it, and a slow run is not a hung one.
test: ## the whole suite (what CI runs)
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 30m ./...

race: ## the whole suite under the race detector
	$(GO) test -race -count=1 -timeout 45m ./...

bench: build ## Go benchmarks, whole-process CLI timings, init allocations per module/package, gateway load (start-to-ready, RSS, health req/s)
	$(GO) test -run '^$$' -bench . -benchmem ./...
	./scripts/bench-cli.sh $(BIN)
	./scripts/bench-browser.sh $(BIN)
	./scripts/init-report.sh $(BIN) 15
	$(GO) build -o bin/gwbench ./cmd/gwbench
	d=$$(mktemp -d) && OPENCLAW_STATE_DIR=$$d bin/gwbench -port 18799 -token bench -- $(BIN) serve --port 18799 --auth token --token bench; rm -rf $$d

interop: build ## the original OpenClaw CLI against our gateway and ours against theirs (installs the peer from npm)
	./scripts/interop.sh $(BIN)

docs: ## regenerate man/openclaw.1 and completions/
	$(GO) run ./cmd/openclaw __gen-docs --dir .

lint: ## gofmt + go vet
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); exit 1)
	$(GO) vet ./...

fuzz: ## run each fuzz target for a short while
	./scripts/fuzz.sh 20s

# Mutation testing (not in CI): gremlins breaks one line at a time and runs
# the package's tests; a mutant the tests do not notice "lived". Sized for a
# 2-core machine: one worker, each package capped by MUTATE_BUDGET, and the
# two load tests that take ~10 s each (TestConcurrentHealth,
# TestReloadRaceWithPatchConverges) skipped per mutant — they guard load,
# not logic. Efficacy = killed / (killed + lived), over covered mutants.
# No --test-cpu: gremlins v0.6.0 passes it to go test as the single argument
# "-cpu N", which every test binary rejects (exit 1, so every mutant counted
# "killed"); the tests use GOMAXPROCS as it is. -count=1 (in GOFLAGS, which
# reaches both gremlins' coverage run and each mutant's run): a cached
# baseline would time the tests at ~0 s, and every mutant would time out.
# -vet=off: go test's vet pass costs each mutant a second or two and can
# only make it NOT VIABLE (a vet complaint reads as a build failure), never
# killed.
MUTATE_PKGS   ?= ./gateway ./policy ./config ./netguard ./store/media ./tools/exec \
                 ./tools/nodes ./tools/cron ./tools/sessions ./tools/agentrun ./tools/message \
                 ./channels ./mcpserve ./tools/canvas
# (gremlins takes directories, not ./...; a directory covers its subpackages)
MUTATE_BUDGET ?= 30m
MUTATE_SKIP   ?= ^(TestConcurrentHealth|TestReloadRaceWithPatchConverges)$$
# Each mutant's timeout is the baseline (the coverage run, warm build cache)
# times MUTATE_TIMEOUT_COEF; a mutant also recompiles and relinks, so on a
# loaded machine 4 timed out every mutant of a package whose tests take ~1 s.
# A timed-out mutant counts neither killed nor lived: too small a coefficient
# hides lived mutants. MUTATE_EXCLUDE (a regexp on file paths relative to the
# package directory, e.g. '^(options|log)\.go$$|^gatewaytest/') narrows a run
# to some files; such a run scores those files only, not the package.
# gremlins runs from bin/gremlins (not `go run`, which puts GOROOT/bin first
# in PATH) with scripts/mutate/go first in PATH: v0.6.0 tests a package whose
# name is not its directory's (tools/exec is exectool) as the module root,
# which fails to set up, and counted every such mutant killed; and it counted
# a mutant that does not compile ("a" - "b") killed, which the script makes
# NOT VIABLE (see the script).
MUTATE_TIMEOUT_COEF ?= 10
MUTATE_WORKERS ?= 1
MUTATE_EXCLUDE ?=
GREMLINS      := github.com/go-gremlins/gremlins/cmd/gremlins@v0.6.0

mutate: ## mutation score per package with gremlins (slow: MUTATE_PKGS, MUTATE_BUDGET each; not in CI)
	@mkdir -p bin/mutate
	@GOBIN="$(CURDIR)/bin" $(GO) install $(GREMLINS)
	@for p in $(MUTATE_PKGS); do \
	  out=bin/mutate/$$(echo $$p | tr -c 'a-z0-9\n' '_'); \
	  echo "== $$p (budget $(MUTATE_BUDGET), report $$out.json, log $$out.log)"; \
	  MUTATE_REAL_GO="$$(command -v $(GO))" MUTATE_MODULE="$$($(GO) list -m)" \
	  PATH="$(CURDIR)/scripts/mutate:$$PATH" GOFLAGS='-count=1 -vet=off -skip=$(MUTATE_SKIP)' \
	  timeout $(MUTATE_BUDGET) bin/gremlins unleash \
	    --workers $(MUTATE_WORKERS) --timeout-coefficient $(MUTATE_TIMEOUT_COEF) \
	    $(if $(MUTATE_EXCLUDE),--exclude-files '$(MUTATE_EXCLUDE)') --output $$out.json $$p 2>&1 | tee $$out.log; \
	  grep -q 'Test efficacy' $$out.log || echo "   $$p: stopped at the budget or failed; so far" \
	    "killed $$(grep -c 'KILLED' $$out.log), lived $$(grep -c 'LIVED' $$out.log)," \
	    "timed out $$(grep -c 'TIMED OUT' $$out.log), not covered $$(grep -c 'NOT COVERED' $$out.log)," \
	    "not viable $$(grep -c 'NOT VIABLE' $$out.log)"; \
	done

clean:
	rm -rf bin
