# densify — two commands on a fresh machine:  make test   and   make demo
# Every target that compiles Go code first runs scripts/setup.sh (idempotent, silent when
# nothing changed): apt packages, the patched CPU copy of gotch in .build/gotch, go.work.
# Use an official CUDA libtorch 2.1 instead of Debian's CPU one with  LIBTORCH=/path make ...

SHELL := /bin/bash
.SHELLFLAGS := -eo pipefail -c
GO ?= go
TEST_TIMEOUT ?= 45m
BENCH_TIMEOUT ?= 60m
FUZZTIME ?= 30s

.PHONY: all setup build test bench demo fuzz clean

# unet's block cache (unet/blockcache.cpp) includes c10's headers and links libc10 itself; with
# an official libtorch they are under $(LIBTORCH), not /usr.
ifneq ($(LIBTORCH),)
export CGO_CXXFLAGS := -g -O2 -I$(LIBTORCH)/include
export CGO_LDFLAGS := -g -O2 -L$(LIBTORCH)/lib -Wl,-rpath,$(LIBTORCH)/lib
endif

all: build

setup:
	@bash scripts/setup.sh

build: setup
	$(GO) build -o bin/densify ./cmd/densify

# scripts/setup-slurm.sh installs slurm-wlm and munge for the Slurm end-to-end test.
test: setup
	@bash scripts/setup-slurm.sh
	$(GO) vet ./...
	$(GO) test -timeout $(TEST_TIMEOUT) ./...

# JSON on stdout, go test progress on stderr.
bench: setup
	@$(GO) test -run '^$$' -bench . -benchmem -timeout $(BENCH_TIMEOUT) ./... | $(GO) run ./internal/tools/benchjson

demo: setup build
	@if [ -f scripts/demo.sh ]; then bash scripts/demo.sh; else echo "demo: not yet"; fi

# Runs every Fuzz target of every package for $(FUZZTIME) each.
fuzz: setup
	@for pkg in $$($(GO) list ./...); do \
		for f in $$($(GO) test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz' || true); do \
			echo "fuzz: $$pkg $$f ($(FUZZTIME))" >&2; \
			$(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg; \
		done; \
	done

clean:
	rm -rf bin .build go.work go.work.sum
