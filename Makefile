# toolgate — see README.md. Every target works on a fresh clone with only Go
# (and, for make test, Node.js with npm: the agent-safe differential test and the
# MCP reference-server spec) installed.

GO        ?= go
BIN       ?= $(CURDIR)/bin
PKGS      ?= ./...
FUZZTIME  ?= 30s
# Per-target fuzz time of the short run in CI (make fuzz-short).
# An execution count, not a duration: with a short duration the fuzz
# coordinator can report "context deadline exceeded" on a loaded machine
# without any crash.
FUZZTIME_SHORT ?= 20000x
# Minimum total statement coverage of internal/engine (make cover-engine).
COVER_MIN ?= 90
SAMPLES   ?= config/samples
STATE     ?= $(CURDIR)/.state
# make run's address (hack/ship's doc test runs make run on a free port).
LISTEN    ?= 127.0.0.1:8080

##@ General

.PHONY: help
help: ## Show this help.
	@awk 'BEGIN {FS = ":.*##"} /^[a-zA-Z_-]+:.*?##/ { printf "  %-14s %s\n", $$1, $$2 } /^##@/ { printf "\n%s\n", substr($$0, 5) }' $(MAKEFILE_LIST)

##@ Development

.PHONY: fmt
fmt: ## Format all Go code.
	$(GO) fmt $(PKGS)

.PHONY: fmt-check
fmt-check: ## Fail if any Go file is not gofmt-clean.
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

.PHONY: vet
vet: ## Run go vet.
	$(GO) vet $(PKGS)

CONTROLLER_GEN ?= $(BIN)/controller-gen

.PHONY: generate
generate: $(CONTROLLER_GEN) ## Regenerate generated code (Section 48 vocabularies, the strict request decoder, API deepcopy).
	$(GO) generate ./internal/engine/vocab/
	$(GO) generate ./internal/server/
	$(CONTROLLER_GEN) object:headerFile=hack/boilerplate.go.txt paths=./api/...

.PHONY: manifests
manifests: $(CONTROLLER_GEN) ## Regenerate the CRDs (config/crd/bases, copied to charts/toolgate/crds; the Grafana dashboard too), the manager's RBAC (config/rbac) and the webhook configurations (config/webhook).
	$(CONTROLLER_GEN) crd paths=./api/... output:crd:artifacts:config=config/crd/bases
	$(CONTROLLER_GEN) rbac:roleName=manager-role paths="./controllers/...;./internal/consume/apistore/..." output:rbac:artifacts:config=config/rbac
	$(CONTROLLER_GEN) webhook paths=./internal/webhook/... output:webhook:artifacts:config=config/webhook
	rm -f charts/toolgate/crds/*.yaml && cp config/crd/bases/*.yaml charts/toolgate/crds/
	cp config/grafana/toolgate-dashboard.json charts/toolgate/dashboards/

# Files written by generators; verify fails when regenerating changes them or
# leaves one untracked.
GENERATED ?= internal/engine/vocab/zz_generated.vocab.go \
	internal/server/zz_generated.strict.go \
	api/v1alpha1/zz_generated.deepcopy.go \
	config/crd/bases config/rbac/role.yaml config/webhook/manifests.yaml \
	charts/toolgate/crds charts/toolgate/dashboards

.PHONY: verify
verify: generate manifests fmt-check ## Regenerate everything and fail if a generated file changed.
	@git diff --exit-code -- $(GENERATED) || (echo "generated files are stale: run make generate manifests and commit"; exit 1)
	@untracked=$$(git status --porcelain --untracked-files=all -- $(GENERATED) | grep '^??'); \
	if [ -n "$$untracked" ]; then echo "generated files are not committed:"; echo "$$untracked"; exit 1; fi

.PHONY: lint
lint: $(BIN)/golangci-lint ## Run golangci-lint (depguard keeps the engine pure; go vet runs in make test, not here).
	$(BIN)/golangci-lint run $(PKGS)

$(BIN)/golangci-lint: hack/tools/go.mod
	$(GO) -C hack/tools build -o $(BIN)/golangci-lint github.com/golangci/golangci-lint/v2/cmd/golangci-lint

$(BIN)/controller-gen: hack/tools/go.mod
	$(GO) -C hack/tools build -o $(BIN)/controller-gen sigs.k8s.io/controller-tools/cmd/controller-gen

##@ Test

# Packages outside test/ (unit tests, and the Consumption stores' suites on
# envtest binaries); test/... holds the Ginkgo suites on a real kube-apiserver.
UNIT_PKGS = $(shell $(GO) list $(PKGS) | grep -v '^github.com/toolgate/toolgate/test/')

.PHONY: test
test: vet envtest-bins ## The README's test command: go vet, every test with the race detector, then the envtest suites with their spec counts; fails (never skips) without envtest binaries. No code generation.
	KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS)" TOOLGATE_REQUIRE_ENVTEST=1 $(GO) test -race -count=1 $(UNIT_PKGS)
	KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS)" TOOLGATE_REQUIRE_ENVTEST=1 GO=$(GO) hack/test-specs.sh -count=1 ./test/...

.PHONY: test-unit
test-unit: ## Faster: every test outside test/ with the race detector; tests needing envtest binaries skip (say so) when KUBEBUILDER_ASSETS is unset.
	$(GO) test -race -count=1 $(UNIT_PKGS)

# Every fuzz target in the module is listed here (TestEveryFuzzTargetRunsInCI
# fails otherwise), each with committed seeds (f.Add or testdata/fuzz/<Name>/).
.PHONY: test-fuzz
test-fuzz: ## Run every fuzz target for FUZZTIME each.
	$(GO) test -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime $(FUZZTIME) ./internal/jsonexact/
	$(GO) test -run '^$$' -fuzz '^FuzzCanonicalDigest$$' -fuzztime $(FUZZTIME) ./internal/agentsafe/
	$(GO) test -run '^$$' -fuzz '^FuzzValidate$$' -fuzztime $(FUZZTIME) ./internal/engine/schema/
	$(GO) test -run '^$$' -fuzz '^FuzzNew$$' -fuzztime $(FUZZTIME) ./internal/engine/schema/
	$(GO) test -run '^$$' -fuzz '^FuzzValidateJSON$$' -fuzztime $(FUZZTIME) ./internal/engine/schema/
	$(GO) test -run '^$$' -fuzz '^FuzzEncode$$' -fuzztime $(FUZZTIME) ./internal/engine/canon/
	$(GO) test -run '^$$' -fuzz '^FuzzPublish$$' -fuzztime $(FUZZTIME) ./internal/engine/policy/
	$(GO) test -run '^$$' -fuzz '^FuzzCompiledEvaluator$$' -fuzztime $(FUZZTIME) ./internal/engine/policy/
	$(GO) test -run '^$$' -fuzz '^FuzzPathWithin$$' -fuzztime $(FUZZTIME) ./internal/engine/argpred/
	$(GO) test -run '^$$' -fuzz '^FuzzURLIn$$' -fuzztime $(FUZZTIME) ./internal/engine/argpred/
	$(GO) test -run '^$$' -fuzz '^FuzzStrictDecoder$$' -fuzztime $(FUZZTIME) ./internal/server/
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeEntries$$' -fuzztime $(FUZZTIME) ./internal/consume/boltstore/
	$(GO) test -run '^$$' -fuzz '^FuzzOutcomeLine$$' -fuzztime $(FUZZTIME) ./internal/mcpgate/
	$(GO) test -run '^$$' -fuzz '^FuzzDerive$$' -fuzztime $(FUZZTIME) ./internal/argprofile/
	$(GO) test -run '^$$' -fuzz '^FuzzDeriveWiderPattern$$' -fuzztime $(FUZZTIME) ./internal/argprofile/
	$(GO) test -run '^$$' -fuzz '^FuzzVerifyRejectsWithoutEcho$$' -fuzztime $(FUZZTIME) ./internal/mcpgate/clientauth/

.PHONY: fuzz-short
fuzz-short: ## Run every fuzz target briefly (FUZZTIME_SHORT each), as CI does.
	$(MAKE) --no-print-directory test-fuzz FUZZTIME=$(FUZZTIME_SHORT)

.PHONY: cover-engine
cover-engine: | $(BIN) ## Fail if internal/engine's total statement coverage is below COVER_MIN percent.
	$(GO) test -count=1 -coverprofile=$(BIN)/cover-engine.out ./internal/engine/...
	@$(GO) tool cover -func=$(BIN)/cover-engine.out | awk -v min=$(COVER_MIN) \
		'$$1 == "total:" { pct = $$3 + 0; printf "internal/engine coverage: %.1f%% of statements (gate %s%%)\n", pct, min; \
		if (pct < min) { print "coverage is below the gate"; failed = 1 }; found = 1 } \
		END { if (!found) { print "no total in the coverage profile"; exit 1 }; exit failed }'

$(BIN):
	@mkdir -p $(BIN)

.PHONY: bench
bench: ## Run the engine benchmarks (numbers go to docs/performance.md).
	$(GO) test -run '^$$' -bench . -benchmem ./internal/...

# Rounds of the interleaved peer table; each measures every engine and size
# once for BENCHTIME_PEERS.
PEER_ROUNDS     ?= 10
BENCHTIME_PEERS ?= 1s

# Where make profile writes; docs/profiles holds the committed baseline.
PROFILE_DIR ?= $(CURDIR)/.profiles

.PHONY: profile
profile: build ## CPU and allocation profiles of authorize and consume: bin/toolgate serve under hack/loadgen, 16 clients, 10 s per phase, into PROFILE_DIR (compare with docs/profiles).
	hack/profile.sh $(BIN)/toolgate $(PROFILE_DIR)

.PHONY: bench-check
bench-check: ## The bench/ module builds (its go.mod is tidy) and every engine agrees on every input; no timing.
	cd bench && $(GO) vet ./...
	cd bench && $(GO) test -count=1 -run '^TestAgreement$$' .

.PHONY: chart-check
chart-check: ## The Helm chart (charts/toolgate) renders the kustomize config's objects (module charts/test, its own go.mod).
	cd charts/test && $(GO) vet ./...
	cd charts/test && $(GO) test -count=1 ./...

.PHONY: corpus
corpus: ## Re-capture the MCP server corpus (test/mcp/testdata/corpus: the pinned npm servers and the GitHub MCP server, started on loopback with dummy credentials), then its import report; not part of make test, which reads the committed captures.
	$(GO) run ./hack/mcpcorpus
	$(GO) test -count=1 ./hack/mcpcorpus -run TestCorpus -update

.PHONY: holdout
holdout: ## Re-capture the MCP server holdout (test/mcp/testdata/holdout: servers the corpus does not contain, pinned by their own npm lock), then both import reports; not part of make test.
	$(GO) run ./hack/mcpcorpus -set holdout
	$(GO) test -count=1 ./hack/mcpcorpus -run TestCorpus -update

.PHONY: bench-peers
bench-peers: ## Same decision in toolgate, OPA, cedar-go and cel-go (module bench/): agreement, then a table of medians and ratios.
	cd bench && $(GO) test -count=1 -run '^TestAgreement$$' .
	cd bench && $(GO) test -count=1 -run '^TestPeerTable$$' -v . -args -peers.rounds=$(PEER_ROUNDS) -test.benchtime=$(BENCHTIME_PEERS)

# Interleaved rounds and the duration of each attack of bench-http-peers.
HTTP_PEER_ROUNDS ?= 3
HTTP_PEER_DURATION ?= 5s
HTTP_PEER_CLIENTS ?= 4,16

# OPA's server at the bench module's pinned version, into $(BIN)/peers.
INSTALL_PEER_OPA = GOBIN=$(abspath $(BIN))/peers $(GO) install github.com/open-policy-agent/opa@$$(cd bench && $(GO) list -m -f '{{.Version}}' github.com/open-policy-agent/opa)

.PHONY: bench-http-peers
bench-http-peers: | $(BIN) ## toolgate serve and OPA's server (the bench module's pinned version) on loopback, driven by vegeta in interleaved rounds: req/s, p50, p99, ratios.
	$(GO) build -o $(BIN)/toolgate ./cmd/toolgate
	$(INSTALL_PEER_OPA)
	cd bench && $(GO) run ./cmd/httppeers -opa $(abspath $(BIN))/peers/opa -toolgate $(abspath $(BIN))/toolgate -root .. \
		-rounds $(HTTP_PEER_ROUNDS) -d $(HTTP_PEER_DURATION) -clients $(HTTP_PEER_CLIENTS)

# Measured requests per workload of bench-instructions (each server runs
# with N and with 2N) and its output (text or json).
INSTR_REQUESTS ?= 200
INSTR_OUTPUT ?= text

.PHONY: bench-instructions
bench-instructions: | $(BIN) ## Instructions per request under valgrind's callgrind, load-independent: the net/http floor, OPA's server, toolgate serve's authorize, consume and validate, a direct MCP call and the MCP gateway's share of a gated one (hack/instructions).
	$(GO) build -o $(BIN)/toolgate ./cmd/toolgate
	$(INSTALL_PEER_OPA)
	$(GO) build -o $(BIN)/mcp-upstream ./test/mcp/upstream
	cd bench && $(GO) build -o $(abspath $(BIN))/peers/httppeers ./cmd/httppeers
	$(GO) run ./hack/instructions -toolgate $(BIN)/toolgate -httppeers $(BIN)/peers/httppeers -opa $(BIN)/peers/opa \
		-upstream $(BIN)/mcp-upstream -n $(INSTR_REQUESTS) -o $(INSTR_OUTPUT)

##@ Build and run

# The release (file VERSION, the one place it is written): make release
# stamps v$(RELEASE) into the binaries, config/manager, config/mcp and the
# chart pull the image tag v$(RELEASE), make image tags its tarball with it
# as well, and docs/gitops.md, .pre-commit-hooks.yaml and CHANGELOG.md name
# it (hack/ship's TestReleaseVersionIsNamedEverywhere).
RELEASE  := $(shell cat $(CURDIR)/VERSION)
RELEASE_TAG := v$(RELEASE)

# The version and commit stamped into binaries (internal/buildinfo); a build
# outside a git checkout says "(devel)".
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo "(devel)")
COMMIT   ?= $(shell git rev-parse HEAD 2>/dev/null)
LDFLAGS  ?= -X github.com/toolgate/toolgate/internal/buildinfo.version=$(VERSION) -X github.com/toolgate/toolgate/internal/buildinfo.commit=$(COMMIT)
DIST     ?= $(CURDIR)/dist
PLATFORMS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64

.PHONY: build
build: ## Build bin/toolgate.
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN)/toolgate ./cmd/toolgate

.PHONY: install
install: ## Install toolgate into $(go env GOBIN) (or $(go env GOPATH)/bin), version stamped.
	$(GO) install -ldflags '$(LDFLAGS)' ./cmd/toolgate

# The release binaries' names; make release replaces only these (make image
# writes into DIST too).
RELEASE_BINS = $(addprefix toolgate-,$(subst /,-,$(PLATFORMS)))

# A release build says the release's version, whatever git describe says
# (tag the commit v$(RELEASE) to make the two agree).
release: VERSION = $(RELEASE_TAG)

.PHONY: release
release: ## Static binaries for PLATFORMS (linux/darwin × amd64/arm64), stamped with VERSION's release (v$(RELEASE)), and their SHA256SUMS in DIST (dist/); fails unless CHANGELOG.md has its section.
	@grep -q '^## \[$(RELEASE)\]' CHANGELOG.md || { echo "CHANGELOG.md has no section ## [$(RELEASE)]" >&2; exit 1; }
	@mkdir -p $(DIST) && rm -f $(DIST)/SHA256SUMS $(RELEASE_BINS:%=$(DIST)/%)
	@for p in $(PLATFORMS); do \
		os=$${p%/*}; arch=$${p#*/}; out=$(DIST)/toolgate-$$os-$$arch; \
		echo "building $$out"; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -ldflags '-s -w $(LDFLAGS)' -o $$out ./cmd/toolgate || exit 1; \
	done
	cd $(DIST) && sha256sum $(RELEASE_BINS) > SHA256SUMS && cat SHA256SUMS

# The daemonless image (make image): name, platform (or a comma-separated
# list: the OCI layout then holds their multi-platform index, the tarball the
# first), and the time stamped into it (the commit's, so one commit gives one
# digest). The tarball is tagged with the build's version and with
# RELEASE_TAG, the tag config/manager and the chart pull, so that make image,
# kind load image-archive and kubectl apply -k config/default run the image
# just built.
IMAGE          ?= ghcr.io/toolgate/toolgate
IMAGE_PLATFORM ?= linux/$(shell $(GO) env GOARCH)
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
# A PEM bundle to install as /etc/ssl/certs/ca-certificates.crt (none by default).
IMAGE_CA_CERTS ?=

.PHONY: image
image: ## The container image without Docker (module hack/image): DIST/toolgate-image.tar (docker load, podman load, kind load image-archive, crane push; tagged with VERSION and v$(RELEASE)) and the OCI layout DIST/toolgate-image.oci; the Dockerfile's user, entrypoint and labels.
	cd hack/image && $(GO) run . -root $(CURDIR) -platform $(IMAGE_PLATFORM) -ldflags '-s -w $(LDFLAGS)' \
		-version '$(VERSION)' -commit '$(COMMIT)' -repo $(IMAGE) -also-tag $(RELEASE_TAG) -created $(SOURCE_DATE_EPOCH) \
		$(if $(IMAGE_CA_CERTS),-ca-certs $(abspath $(IMAGE_CA_CERTS))) \
		-tar $(DIST)/toolgate-image.tar -oci-layout $(DIST)/toolgate-image.oci

.PHONY: image-check
image-check: ## make image builds, and its tarball's config (user, entrypoint, labels) and layer (the stamped static binary) are checked (module hack/image, its own go.mod).
	cd hack/image && $(GO) vet ./...
	cd hack/image && $(GO) test -count=1 ./...

.PHONY: run
run: build ## Serve the shipped samples on LISTEN, 127.0.0.1:8080 (standalone; the README walks through it with curl).
	$(BIN)/toolgate serve --standalone --manifests $(SAMPLES) --state $(STATE) \
		--tokens examples/standalone/tokens.yaml --listen $(LISTEN)

.PHONY: decide
decide: build ## Decide the three example requests (allow, deny, requireConfirmation) offline, with toolgate decide (a deny exits 1).
	@for r in payment-allow payment-deny email-confirm; do \
		echo "== examples/requests/$$r.yaml"; \
		$(BIN)/toolgate decide --manifests $(SAMPLES) --request examples/requests/$$r.yaml; \
		rc=$$?; [ $$rc -eq 0 ] || { [ $$rc -eq 1 ] && [ $$r = payment-deny ]; } || exit 1; \
	done

##@ Integration

# Directory holding kube-apiserver and etcd for envtest suites
# (KUBEBUILDER_ASSETS=$(ENVTEST_ASSETS)). Computed lazily: referencing it runs
# hack/envtest/build.sh, which builds the binaries once per machine (how long:
# CONTRIBUTING.md, "How long the tests take") and afterwards only prints the
# cached directory.
ENVTEST_ASSETS = $(shell hack/envtest/build.sh | tail -n 1)

.PHONY: envtest-bins
envtest-bins: ## Build (once per machine) and cache kube-apiserver and etcd for envtest.
	@hack/envtest/build.sh || { echo "envtest: could not build kube-apiserver and etcd (needs the Go module proxy; see hack/envtest/README.md): make test runs the envtest suites and does not skip them" >&2; exit 1; }

# Where make dev-cluster keeps its pid, state, kubeconfig and logs (git-ignored).
DEV_CLUSTER ?= $(CURDIR)/.dev-cluster

.PHONY: dev-cluster
dev-cluster: build envtest-bins | $(BIN) ## A local cluster without kind or Docker: envtest's kube-apiserver and etcd, the CRDs, the manager with local webhooks, the samples; prints a kubeconfig and the next commands (docs/dev-cluster.md).
	$(GO) build -o $(BIN)/devcluster ./hack/devcluster
	$(BIN)/devcluster up -dir $(DEV_CLUSTER) -assets "$(ENVTEST_ASSETS)" -toolgate $(BIN)/toolgate -root $(CURDIR)

.PHONY: dev-cluster-down
dev-cluster-down: | $(BIN) ## Stop the cluster make dev-cluster started.
	$(GO) build -o $(BIN)/devcluster ./hack/devcluster
	$(BIN)/devcluster down -dir $(DEV_CLUSTER)

.PHONY: test-envtest
test-envtest: envtest-bins ## Only the suites on a real kube-apiserver and etcd (make test runs them too): CRDs and samples, controllers and webhooks, TokenReview, the etcd and apiserver Consumption stores, make dev-cluster.
	KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS)" TOOLGATE_REQUIRE_ENVTEST=1 GO=$(GO) hack/test-specs.sh -count=1 ./test/...
	KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS)" TOOLGATE_REQUIRE_ENVTEST=1 $(GO) test -race -count=1 ./internal/consume/etcdstore/... ./internal/consume/apistore/...
