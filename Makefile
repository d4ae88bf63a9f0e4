# steadystate: `make e2e` runs the suites, `make test` runs everything.
# Both build the Kubernetes binaries from source first (cached per version).

KUBE_VERSION ?= v1.36.3
PROVIDER     ?= local
ARTIFACTS    ?= $(CURDIR)/_artifacts
# The suites' Ginkgo flags by the ginkgo command's names (--label-filter=...,
# --focus=..., -v; `bin/steadystate e2e -h` lists them). The ginkgo command's
# own (-p, --procs, the go build flags) do not apply: make e2e runs no ginkgo.
GINKGO_FLAGS ?=
# Suite settings: -steadystate.converge-timeout=30s, -steadystate.window=1s,
# -steadystate.recovery-margin=15s (the defaults).
SUITE_FLAGS  ?=
# How many suites make e2e runs side by side, each with its own cluster
# (empty: bin/steadystate e2e's default, 3 on local and 1 elsewhere).
E2E_PARALLEL ?=
ifdef CI
GINKGO_FLAGS += --no-color
endif
KIND_CONFIG  ?= $(CURDIR)/kind-config.yaml
export KUBE_VERSION PROVIDER ARTIFACTS KIND_CONFIG
# A subject file or upstream folder named relative to here reaches the
# suites as an absolute path, whichever folder they run in.
ifdef SUBJECT_FILE
override SUBJECT_FILE := $(abspath $(SUBJECT_FILE))
export SUBJECT_FILE
endif
ifdef UPSTREAM_DIR
override UPSTREAM_DIR := $(abspath $(UPSTREAM_DIR))
export UPSTREAM_DIR
endif

# With PROVIDER=kind the suites run with a Docker engine (the one that
# answers, or a private one for the run) and the node image (pulled where a
# registry answers, else built from source once per version).
ifeq ($(PROVIDER),kind)
WITH_CLUSTER_TOOLS := hack/with-docker.sh hack/kind-run.sh
endif
# Only the local provider runs the binaries kube-bins builds.
CLUSTER_BINS := $(if $(filter local,$(PROVIDER)),kube-bins,)

GO     ?= go
# Unit and integration tests: every package but the Ginkgo suites (those
# with a *_suite_test.go: `make e2e` runs them from bin/steadystate).
UNIT_PKGS = $(shell $(GO) list -f '{{.ImportPath}}{{range .TestGoFiles}} {{.}}{{end}}{{range .XTestGoFiles}} {{.}}{{end}}' ./... | grep -v '_suite_test.go' | cut -d' ' -f1)

.PHONY: all build steadystate test unit e2e explore bench kube-bins kind-image kind-test chaosmesh-test chaosmesh-kind-test job-test install-test workflow-test generate images selftest conform zoo zoo-repro hunt upstream-bins upstream lint actionlint docs clean help
all: build

help: ## list the targets
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

build: ## compile every package and the steadystate command into bin/
	$(GO) build ./...
	$(GO) build -o bin/steadystate ./cmd/steadystate

kube-bins: ## build etcd, kube-apiserver, kube-controller-manager, kube-scheduler for KUBE_VERSION and kwok (simulated nodes) at its pinned version (skipped with KUBE_BIN_DIR)
ifeq ($(KUBE_BIN_DIR),)
	@cluster/local/kube-bins.sh >/dev/null
else
	@echo "kube-bins: using KUBE_BIN_DIR=$(KUBE_BIN_DIR)"
endif

# Test packages at a time: most of the integration tests wait on their
# clusters (make test used about one core of two at go test's default,
# GOMAXPROCS packages at a time).
UNIT_PARALLEL ?= 4
# The test with a real Chaos Mesh is chaosmesh-test's: it needs Chaos Mesh's
# controller-manager, the longest of the upstream builds.
unit: kube-bins ## unit and integration tests (real control planes; no Ginkgo suites, no upstream release: chaosmesh-test has the Chaos Mesh one), UNIT_PARALLEL (4) packages at a time
	STEADYSTATE_REQUIRE_BINARIES=1 $(GO) test -count=1 -p $(UNIT_PARALLEL) -skip '^TestChaosMeshAdapter$$' $(UNIT_PKGS)

chaosmesh-test: kube-bins ## the Chaos Mesh adapter against Chaos Mesh's real controller-manager (built from source) on a local cluster
	@$(MAKE) --no-print-directory upstream-bins UPSTREAM_RELEASES=chaos-mesh
	STEADYSTATE_REQUIRE_BINARIES=1 STEADYSTATE_REQUIRE_UPSTREAM=1 $(GO) test -count=1 -v -run '^TestChaosMeshAdapter$$' ./chaos/chaosmesh

# The suites are compiled into bin/steadystate: `steadystate e2e` runs each
# in a child process of it and merges their Ginkgo JSON reports into
# report.json; the summary and the JUnit come from that report, also when a
# spec failed; the target then fails with the suites' status: the report's
# exit code (1 a finding, 3 an error or nothing judged; docs/conformance.md,
# "Exit codes"), shown in make's "Error N" (make itself exits 2 on any).
# Every suite runs and is judged, whichever failed before it.
e2e: $(CLUSTER_BINS) steadystate ## every suite, from bin/steadystate, on PROVIDER (local, kind, existing); JUnit to $(ARTIFACTS)/junit.xml
	@mkdir -p $(ARTIFACTS)
	@rm -f $(ARTIFACTS)/report.json $(ARTIFACTS)/junit.xml
	@status=0; $(WITH_CLUSTER_TOOLS) bin/steadystate e2e --artifacts=$(ARTIFACTS) $(if $(E2E_PARALLEL),--parallel=$(E2E_PARALLEL)) $(GINKGO_FLAGS) -- -steadystate.refctl=$(CURDIR)/bin/refctl $(SUITE_FLAGS) || status=$$?; \
	if [ -f $(ARTIFACTS)/report.json ]; then \
	  bin/steadystate junit $(ARTIFACTS)/report.json $(ARTIFACTS)/junit.xml || status=3; \
	  bin/steadystate html $(ARTIFACTS) || status=3; \
	  bin/steadystate report $(ARTIFACTS)/report.json || status=$$?; \
	else echo "e2e: the suites wrote no report ($(ARTIFACTS)/report.json): see the output above"; [ $$status -ne 0 ] || status=3; fi; \
	exit $$status

# bin/steadystate and bin/refctl (the reference controllers, which the
# suites would otherwise each build), rebuilt when a source changed;
# stamped with the commit they were built from where git can say it
# (whatever GOFLAGS says), so a bundle names the harness that judged it.
steadystate: ## build the steadystate command and refctl into bin/
	$(GO) build -buildvcs=auto -o bin/ ./cmd/steadystate ./cmd/refctl

selftest: $(CLUSTER_BINS) ## every suite against every reference subject mode on PROVIDER; prints the matrix (SELFTEST_REPEAT=N, SELFTEST_PARALLEL=N)
	$(WITH_CLUSTER_TOOLS) $(GO) run ./cmd/steadystate selftest

conform: $(CLUSTER_BINS) ## every suite SUBJECT_FILE's capabilities allow (or those of CAPABILITIES=a,b), on PROVIDER, once; a results bundle in $(ARTIFACTS)/conformance.tar.gz
	@test -n "$(SUBJECT_FILE)" || { echo "make conform needs SUBJECT_FILE=path/to/subject.yaml (see fixtures/subjects)"; exit 2; }
	$(WITH_CLUSTER_TOOLS) $(GO) run ./cmd/steadystate conform --subject $(SUBJECT_FILE) --provider $(PROVIDER) $(if $(CAPABILITIES),--capabilities '$(CAPABILITIES)')

# The zoo: real controllers nobody here wrote (fixtures/zoo), each run
# through steadystate conform on the local cluster with simulated nodes
# (LOCAL_NODES=on unless set), ZOO_RUNS times each (ZOO_SUBJECTS=a,b picks
# some); prints the matrix and keeps it in $(ARTIFACTS)/zoo (zoo.json, zoo.md).
ZOO_RUNS     ?= 1
ZOO_SUBJECTS ?=
ZOO_DIR      ?= fixtures/zoo
ZOO_CAPABILITIES ?=
ZOO_PARALLEL ?= 1
zoo: kube-bins steadystate ## steadystate conform over every subject of ZOO_DIR (fixtures/zoo; fixtures/zoo/operators after make zoo-bins), ZOO_RUNS times each (ZOO_SUBJECTS=a,b picks some; ZOO_CAPABILITIES=reconciledObjects runs only those suites; ZOO_PARALLEL=N runs N at a time, a cluster each); prints the matrix
	bin/steadystate zoo run --runs '$(ZOO_RUNS)' --subjects '$(ZOO_SUBJECTS)' --dir '$(ZOO_DIR)' --artifacts '$(ARTIFACTS)' --nodes '$(or $(LOCAL_NODES),on)' --capabilities '$(ZOO_CAPABILITIES)' --parallel '$(ZOO_PARALLEL)'

# A kept finding of the zoo reproduced with one command: the file
# fixtures/zoo/findings/$(FINDING).yaml names a subject file, the shrunk
# schedule that breaks it and how many replays to run; `steadystate explore
# --replay` runs them (LOCAL_NODES=on unless set), in $(ARTIFACTS)/zoo-repro,
# and the target prints how many broke which property. An empty or unknown
# FINDING stops make at once (exit 2), naming the findings.
ZOO_FINDINGS_DIR := fixtures/zoo/findings
ZOO_FINDINGS     := $(sort $(basename $(notdir $(wildcard $(ZOO_FINDINGS_DIR)/*.yaml))))
ifneq ($(filter zoo-repro,$(MAKECMDGOALS)),)
ifneq ($(filter $(ZOO_FINDINGS),$(FINDING)) $(words $(FINDING)),$(FINDING) 1)
$(error zoo-repro: FINDING="$(FINDING)" is not a finding of $(ZOO_FINDINGS_DIR); give one of: $(ZOO_FINDINGS))
endif
endif
# A finding on an operator needs its build (make zoo-bins, cached per version);
# its subject may be quoted.
ZOO_REPRO_BINS := $(if $(filter zoo-repro,$(MAKECMDGOALS)),$(if $(shell grep -sE '^subject: *.?fixtures/zoo/operators/' $(ZOO_FINDINGS_DIR)/$(FINDING).yaml),zoo-bins))
zoo-repro: kube-bins steadystate $(ZOO_REPRO_BINS) ## replay a kept finding's shrunk schedule (FINDING=name, fixtures/zoo/findings) with steadystate explore; prints how many replays broke which property
	bin/steadystate zoo repro --finding '$(FINDING)' --findings '$(ZOO_FINDINGS_DIR)' --artifacts '$(ARTIFACTS)' --nodes '$(or $(LOCAL_NODES),on)'

HUNT_BUDGET ?= 30m
HUNT_SEED   ?= 1
HUNT_PARALLEL ?= 1
HUNT_PATTERN ?=
HUNT_SHARED_CLUSTER ?= off
hunt: kube-bins steadystate ## steadystate explore over every subject of ZOO_DIR in turn, HUNT_BUDGET (30m) each, seed HUNT_SEED (1), HUNT_PARALLEL (1) suite processes side by side (sharing one cluster with HUNT_SHARED_CLUSTER=on), every schedule in HUNT_PATTERN (default explore's mix), the reconciledObjects capability (ZOO_SUBJECTS=a,b picks some); prints the hunt's table and the findings to triage
	bin/steadystate zoo hunt --budget '$(HUNT_BUDGET)' --seed '$(HUNT_SEED)' --parallel '$(HUNT_PARALLEL)' --shared-cluster '$(HUNT_SHARED_CLUSTER)' --pattern '$(HUNT_PATTERN)' --subjects '$(ZOO_SUBJECTS)' --dir '$(ZOO_DIR)' --artifacts '$(ARTIFACTS)' --nodes '$(or $(LOCAL_NODES),on)'

upstream-bins: ## build the upstream releases (fixtures/upstream) from the Go module proxy into UPSTREAM_DIR, cached per version (UPSTREAM_RELEASES="a b": only those; a name alone, controller-runtime, for each of its versions)
	$(GO) run ./cmd/steadystate upstream-bins $(UPSTREAM_RELEASES) >/dev/null

# The zoo's operators (fixtures/zoo/operators) from the Go module proxy, next
# to the upstream releases; a release that fails is named with its module and
# version, the others still build, and the target fails at the end.
.PHONY: zoo-bins
zoo-bins: ## build the zoo's operators (fixtures/zoo/operators) from the Go module proxy into UPSTREAM_DIR, cached per version
	@hack/zoo-bins.sh

upstream: upstream-bins $(CLUSTER_BINS) ## the upstream releases with and without each bug, through subject files; prints the matrix (UPSTREAM_REPEAT=N, UPSTREAM_PARALLEL=N, UPSTREAM_CELLS=...)
	$(WITH_CLUSTER_TOOLS) $(GO) run ./cmd/steadystate upstream

# Exploration: SUBJECT=workload|leader|composite|cluster|stack|replicaset|statefulset|path/to/subject.yaml,
# SUBJECT_BUG=a seeded bug, BUDGET=10m, SEED=N, EXPLORE_FLAGS=--replay F ...
BUDGET ?= 10m
explore: $(CLUSTER_BINS) ## seeded random fault schedules against SUBJECT (SUBJECT_BUG, BUDGET, SEED); each finding kept with its schedule
	@test -n "$(SUBJECT)" || { echo "make explore needs SUBJECT=workload, leader, composite, cluster, stack, replicaset, statefulset or a subject file"; exit 2; }
	$(WITH_CLUSTER_TOOLS) $(GO) run ./cmd/steadystate explore --subject $(SUBJECT) $(if $(SUBJECT_BUG),--bug $(SUBJECT_BUG)) --budget $(BUDGET) $(if $(SEED),--seed $(SEED)) $(EXPLORE_FLAGS)

test: lint unit e2e ## everything CI runs

bench: kube-bins steadystate ## cluster start/stop (with and without simulated nodes), 1,000 pods to Ready and gone, the reconcile suite's fault-free reference runs of the reference composite, proxy latency and watch throughput (medians), the oracle on 10k-1M events, the steady-state judges on 100k events, proxy and history memory at 10k-1M events
	$(GO) test -run '^$$' -bench StartStop -benchtime 10x ./cluster/local
	$(GO) test -run '^$$' -bench ThousandPods -benchtime 1x ./cluster/local
	$(GO) test -run '^$$' -bench ReferenceRun -benchtime 5x ./matrix
	$(GO) test -run '^$$' -bench AddedLatency -benchtime 500x ./chaos/proxy
	$(GO) test -run '^$$' -bench WatchThroughput -benchtime 5x ./chaos/proxy
	$(GO) test -run '^$$' -bench JudgeScaledHistory -benchtime 3x -benchmem ./judge
	$(GO) test -run '^$$' -bench SteadyStateJudges -benchtime 3x -benchmem ./judge
	$(GO) test -run '^$$' -bench ProxyMemory -benchtime 1x ./chaos/proxy
	$(GO) test -run '^$$' -bench HistoryMemory -benchtime 1x ./oracle

CONTROLLER_GEN := $(CURDIR)/bin/controller-gen
$(CONTROLLER_GEN): hack/tools/go.mod
	cd hack/tools && $(GO) build -o $(CONTROLLER_GEN) sigs.k8s.io/controller-tools/cmd/controller-gen

# The generated pages of docs/: the properties page's tables come from the
# catalog; reports' TestPropertiesPageHasTheCatalog (in make unit) fails when
# they drift.
docs: ## regenerate the generated parts of docs/ (properties.md from the catalog, results.md's tables from docs/results, subject-file-reference.md from the Go types, design.md's layout table from internal/layout)
	$(GO) test -count=1 -run '^(TestPropertiesPageHasTheCatalog|TestResultsPageHasTheSets)$$' ./reports -args -update
	$(GO) test -count=1 -run '^TestReferencePageHasTheTypes$$' ./subjectfile -args -update
	$(GO) test -count=1 -run '^TestLayoutTableIsTheFolders$$' ./internal/layout -args -update

generate: $(CONTROLLER_GEN) ## regenerate deep copies, CRDs and RBAC with controller-gen (hack/tools module)
	$(CONTROLLER_GEN) object paths=./reference/api/...
	$(CONTROLLER_GEN) crd:generateEmbeddedObjectMeta=true paths=./reference/api/... output:crd:dir=fixtures/reference/crds
	$(CONTROLLER_GEN) rbac:roleName=refctl paths=./reference/... output:rbac:dir=fixtures/reference/rbac

kind-image: ## the offline kind node image for KUBE_VERSION, built from source (pulled instead if KIND_NODE_IMAGE names a pullable one)
	hack/with-docker.sh hack/kind-image.sh

chaosmesh-kind-test: UPSTREAM_RELEASES ?= chaos-mesh chaos-daemon
chaosmesh-kind-test: upstream-bins ## Chaos Mesh's controller-manager and chaos-daemon on kind, built from source and loaded with no registry: PodChaos kills a running pod, NetworkChaos partitions pods
	hack/with-docker.sh hack/kind-run.sh env STEADYSTATE_REQUIRE_KIND=1 STEADYSTATE_REQUIRE_UPSTREAM=1 $(GO) test -count=1 -v -timeout 20m -run TestChaosMeshOnKind ./chaos/chaosmesh

kind-test: ## the kind provider's own test: create, refuse a name in use, export logs, delete (real Docker)
	hack/with-docker.sh hack/kind-run.sh env STEADYSTATE_REQUIRE_KIND=1 $(GO) test -count=1 -v -run "TestClusterLifecycle|TestInterruptedCreateLeavesNothing" ./cluster/kind

install-test: UPSTREAM_RELEASES ?= controller-runtime
install-test: upstream-bins ## go install steadystate from a module proxy into an empty folder, conform there on local, verify the bundle
	hack/install-test.sh

workflow-test: kube-bins ## the vendor workflow (.github/workflows/conformance.yaml) run by act in its self-hosted mode, as a vendor's repository calls it: it conforms a zoo subject (SUBJECT; CAPABILITIES=a,b runs only those suites) on local, uploads the bundle; the bundle is checked against the digest it printed
	hack/workflow-test.sh

job-test: UPSTREAM_RELEASES ?= controller-runtime
job-test: upstream-bins ## the steadystate image as a conformance Job (fixtures/job) on a kind cluster: controller-runtime v0.17.3 passes, v0.17.2 breaks; then a 2-index exploration campaign (an Indexed Job) gathered into one bundle that verify accepts
	hack/with-docker.sh hack/kind-run.sh env STEADYSTATE_REQUIRE_KIND=1 $(GO) test -count=1 -v -timeout 70m -run TestConformAsAJobOnKind ./cmd/steadystate

images: ## build the FROM scratch images (refctl, faultproxy, steadystate) with a private Docker engine if none answers
	hack/images.sh

# golangci-lint runs go vet's analyzers (govet) among its linters; its
# configuration is .golangci.yml.
GOLANGCI_LINT := $(CURDIR)/bin/golangci-lint
$(GOLANGCI_LINT): hack/tools/golangci/go.mod
	cd hack/tools/golangci && $(GO) build -o $(GOLANGCI_LINT) github.com/golangci/golangci-lint/v2/cmd/golangci-lint

lint: actionlint $(GOLANGCI_LINT) ## gofmt, golangci-lint (go vet, errcheck, staticcheck, revive and more: .golangci.yml) and actionlint
	@out="$$(gofmt -l .)"; if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GOLANGCI_LINT) run ./...

actionlint: ## check the GitHub Actions workflows (actionlint, built from the hack/tools module)
	cd hack/tools && $(GO) build -o $(CURDIR)/bin/actionlint github.com/rhysd/actionlint/cmd/actionlint
	bin/actionlint

clean: ## remove build output and artifacts (not the binary cache)
	rm -rf bin _images $(ARTIFACTS)
