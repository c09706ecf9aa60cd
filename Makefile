# Orca: a C JVMTI agent (agent/) embedded in a Go CLI (cmd/orca).
#
#   make          build bin/orca (and the agent it embeds)
#   make demo     record the bundled demo program, print the summary and the orca view command
#   make test     no tracked binaries, the agent's C unit tests, go vet, unit tests (docs/: the
#                 length of PERFORMANCE.md, the links between documents) and real-JVM
#                 integration tests (then which JDKs they ran on; ORCA_REQUIRE_JDKS=17,25 fails
#                 them when a named JDK is absent), a fuzz smoke of the Go fuzzers (FUZZERS)
#   make agent-test  the agent's C unit tests alone (agent/test)
#   make deps     install gcc, a JDK 17, chromium, tomcat10-common and wrk with apt-get (as root)
#   make gen      regenerate agent/core/events.h and internal/reader/compact_kinds.go from internal/format
#   make agent-aarch64  cross-compile the agent for aarch64 (part of make test)
#   make bench    run bench/run.sh, then the reader and orca report on 1 GB recordings
#                 (bench/report/run.sh; bench/report/encodings.sh: text and compact)
#   make stress   the long tests (not in make test; ~13 min on 2 cores, README): issue 19's virtual-thread
#                 stress pass (100 000 virtual threads under every collector, -Xcomp, -Xint, on
#                 every JDK 21+ found; summary in build/stress/summary.txt), issue 33's sampling
#                 stress pass (SampleStorm at --cpu 1ms --wall 1ms under every collector, -Xcomp,
#                 -Xint and attached, with class redefinition and deoptimisation storms, on every
#                 JDK found; build/stress/sample-summary.txt) and TestVirtualLongWait 30 times per
#                 collector
#   make clean

SHELL := /bin/bash

# Go lives in /usr/local/go on the project machines; it may not be on PATH.
ifeq ($(shell command -v go 2>/dev/null),)
export PATH := /usr/local/go/bin:$(PATH)
endif

# The JDK whose jni.h/jvmti.h the agent is built against and which runs the
# demo: the Debian JDK 17 if present, else the one javac belongs to.
# Recursive (=) on purpose: evaluated when a recipe runs, after `deps` may
# have installed it. Override with `make JAVA_HOME=/path/to/jdk`.
JAVA_HOME = $(shell d=$$(ls -d /usr/lib/jvm/java-17-openjdk-* 2>/dev/null | head -n1); \
	[ -n "$$d" ] || { j=$$(command -v javac) && d=$$(dirname "$$(dirname "$$(readlink -f "$$j")")"); }; \
	echo "$$d")

# The agent's modules, a directory each (docs/agent.md): agent/MODULE/*.c.
AGENT_C   := $(filter-out agent/test/%,$(wildcard agent/*/*.c))
AGENT_SRC := $(AGENT_C) $(filter-out agent/test/%,$(wildcard agent/*/*.h))
LIB       := internal/agentlib/liborca.so
CFLAGS    := -O2 -g -std=gnu11 -fPIC -shared -fvisibility=hidden -Wall -Wextra -Werror
GOTEST_TIMEOUT := 20m
# GOTEST_FLAGS: more go test flags for make test (.ci/run: -count=1, no cached results).
GOTEST_FLAGS ?=
JDK_SUMMARY := $(CURDIR)/build/integration-jdks.txt

.PHONY: all deps check-deps check-tracked gen test fuzz-smoke agent-test demo bench pgo stress clean agent-aarch64 FORCE

all: bin/orca

# ---- dependencies ----------------------------------------------------------

# MISSING lists the Debian packages that are needed and absent (recursive:
# looked at each time it is used, so after `deps` it is empty).
# Chromium runs the viewer's browser tests and benchmark (internal/web);
# Tomcat 10 (tomcat10-common) and wrk run the server-beside-JFR test
# (integration/server_test.go). test, bench and an explicit `make deps` want
# them, a plain build does not; without root they are skipped with a message.
# The sub-make that check-deps starts inherits the answer.
export ORCA_NEED_TEST_TOOLS ?= $(if $(filter test bench deps,$(MAKECMDGOALS)),1)

MISSING = $(shell m=""; \
	command -v gcc >/dev/null 2>&1 || m="$$m gcc libc6-dev"; \
	[ -z "$(ORCA_NEED_TEST_TOOLS)" ] || command -v chromium >/dev/null 2>&1 || m="$$m chromium"; \
	[ -z "$(ORCA_NEED_TEST_TOOLS)" ] || [ -x /usr/share/tomcat10/bin/catalina.sh ] || m="$$m tomcat10-common"; \
	[ -z "$(ORCA_NEED_TEST_TOOLS)" ] || command -v wrk >/dev/null 2>&1 || m="$$m wrk"; \
	jh="$(JAVA_HOME)"; \
	{ [ -n "$$jh" ] && [ -x "$$jh/bin/javac" ] && [ -f "$$jh/include/jvmti.h" ]; } || m="$$m openjdk-17-jdk-headless"; \
	echo $$m)

# check-deps is cheap (a few `command -v`); it runs `make deps` only when
# something is missing, so every target works on a fresh Debian 12.
check-deps:
	@$(if $(MISSING),echo "orca: missing: $(MISSING); installing (make deps)" >&2 && $(MAKE) --no-print-directory deps,:)

deps:
	@missing="$(MISSING)"; \
	if [ -z "$$missing" ]; then echo "orca: dependencies present (gcc, JDK at $(JAVA_HOME))"; exit 0; fi; \
	if [ "$$(id -u)" != 0 ]; then \
		essential=$$(echo " $$missing " | sed 's/ chromium / /; s/ tomcat10-common / /; s/ wrk / /'); \
		if [ -z "$$(echo $$essential)" ]; then echo "orca: no $$missing, and not root to install them: the tests that need them (viewer in a browser, Tomcat beside JFR) will skip (sudo apt-get install$$missing)" >&2; exit 0; fi; \
		echo "orca: missing packages: $$missing" >&2; \
		echo "orca: run as root: sudo make deps   (or: sudo apt-get install $$missing)" >&2; \
		exit 1; \
	fi; \
	if ! command -v apt-get >/dev/null 2>&1; then \
		echo "orca: missing: $$missing, and no apt-get here; install gcc and a JDK 17 (javac, jvmti.h) by hand" >&2; \
		exit 1; \
	fi; \
	set -x; \
	apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing

# ---- build -----------------------------------------------------------------

# cc_par compiles each C file of a list in a process of its own, NPROC at once, then links them:
# gcc given many files compiles them one after another (the agent: 40 s of CPU on one core of
# two; docs/perf/2026-11-30-test-time.md). The objects go to OBJDIR, named after their paths.
#   $(call cc_par,CC,FLAGS,OBJDIR,OUTPUT,SOURCES,LIBS)
NPROC := $(shell nproc 2>/dev/null || echo 2)
cc_objs = $(addprefix $(1)/,$(addsuffix .o,$(subst /,_,$(2))))
# It prints one short line (the whole command is hundreds of paths long; recipes call it after @);
# make V=1 prints the commands.
cc_par = echo "$(notdir $(1)) $(4): $(words $(5)) files, $(NPROC) at once (V=1: the commands)"; \
	$(if $(V),set -x;) mkdir -p $(3) && printf '%s\n' $(5) | xargs $(if $(V),-t) -P $(NPROC) -I{} sh -c 'exec $(1) $(2) -c -o $(3)/$$(echo {} | tr / _).o {}' && \
	$(1) $(2) -o $(4) $(call cc_objs,$(3),$(5)) $(6)
AGENT_INC := -I$(JAVA_HOME)/include -I$(JAVA_HOME)/include/linux -Iagent

$(LIB): $(AGENT_SRC) | check-deps
	@$(call cc_par,gcc,$(CFLAGS) $(AGENT_INC),build/obj/agent,$@,$(AGENT_C),-lpthread -ldl)

# The agent must at least compile for aarch64 (agent/core/arch.h: no own stack
# walker, no time-stamp counter there). Debian's cross compiler is installed
# when missing and we are root; otherwise, or when the install fails, the
# check is skipped with a message that says why (apt-get's own error, its
# log in build/apt-aarch64.log). JDK headers: the host JDK's (jni_md.h is the
# same on both).
AARCH64_CC := aarch64-linux-gnu-gcc
AARCH64_LOG := build/apt-aarch64.log

agent-aarch64: $(AGENT_SRC) | check-deps
	@why=""; \
	if ! command -v $(AARCH64_CC) >/dev/null 2>&1; then \
		if [ "$$(id -u)" != 0 ]; then why="not root, so not installed: apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross as root"; \
		elif ! command -v apt-get >/dev/null 2>&1; then why="no apt-get to install it with: install an aarch64 cross compiler (make AARCH64_CC=...)"; \
		else \
			echo "orca: installing gcc-aarch64-linux-gnu for the aarch64 build check (apt-get's output: $(AARCH64_LOG))"; \
			mkdir -p build; \
			{ DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends gcc-aarch64-linux-gnu libc6-dev-arm64-cross || \
			  { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends gcc-aarch64-linux-gnu libc6-dev-arm64-cross; }; } >$(AARCH64_LOG) 2>&1; \
			rc=$$?; \
			if [ $$rc != 0 ]; then \
				last=$$(grep -E '^(E|Err):' $(AARCH64_LOG) | tail -n 1); [ -n "$$last" ] || last=$$(tail -n 1 $(AARCH64_LOG)); \
				why="apt-get failed (exit $$rc): $$last (all of it in $(AARCH64_LOG))"; \
			elif ! command -v $(AARCH64_CC) >/dev/null 2>&1; then why="apt-get installed gcc-aarch64-linux-gnu, but $(AARCH64_CC) is still not on PATH"; fi; \
		fi; \
	fi; \
	if command -v $(AARCH64_CC) >/dev/null 2>&1; then \
		mkdir -p build && \
		$(call cc_par,$(AARCH64_CC),$(CFLAGS) $(AGENT_INC),build/obj/aarch64,build/liborca-aarch64.so,$(AGENT_C),-lpthread -ldl); \
	else echo "orca: no $(AARCH64_CC): $$why; the aarch64 build check is skipped"; fi

# go build is incremental: let it decide whether anything changed.
bin/orca: $(LIB) FORCE
	go build -o $@ ./cmd/orca

FORCE:

gen:
	go test ./internal/format -run CHeader -update
	go test ./internal/reader -run CompactKindsUpToDate -update

# ---- test ------------------------------------------------------------------

# The agent's C unit tests (agent/test): class-file rewriting (and a few
# seconds of fuzzing it: cffuzz_test.c), the clock's conversion, the writer's
# ordering, the counters, the bounded waits of the rings and the deferred
# records; built with the sanitizers, against the agent's own sources.
# check-includes.sh first: no cycle of includes or calls among the agent's
# modules (and check_includes_test.sh: it fails on one). The last line says
# "agent unit tests: N passed, N failed".
UNIT_DIR := build/agent-test
UNIT_SRC := $(wildcard agent/test/*.c agent/test/*.h)
UNIT_CFLAGS := -O1 -g -std=gnu11 -Wall -Wextra -Werror -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all

$(UNIT_DIR)/unit: $(UNIT_SRC) $(AGENT_SRC) | check-deps
	@mkdir -p $(UNIT_DIR)
	@$(call cc_par,gcc,$(UNIT_CFLAGS) $(AGENT_INC),build/obj/unit,$@,$(wildcard agent/test/*.c) \
		agent/hooks/inplace.c agent/core/options.c agent/core/orca.c agent/core/counters.c agent/core/fmt.c agent/core/crc32c.c agent/core/idset.c agent/record/compact.c agent/record/tcpu.c agent/record/text.c agent/record/tkeys.c agent/stacks/classids.c,-lpthread)

$(UNIT_DIR)/classes/Check.class: agent/test/Target.java agent/test/Check.java agent/test/InplaceCheck.java | check-deps
	@mkdir -p $(UNIT_DIR)/classes
	$(JAVA_HOME)/bin/javac --release 17 -d $(UNIT_DIR)/classes $^

# inplace_test.c's hooks, a class of java.base (jdk.internal.misc) patched in.
$(UNIT_DIR)/patch/jdk/internal/misc/OrcaTestHooks.class: agent/test/patch/jdk/internal/misc/OrcaTestHooks.java | check-deps
	@mkdir -p $(UNIT_DIR)/patch
	$(JAVA_HOME)/bin/javac --patch-module java.base=agent/test/patch -d $(UNIT_DIR)/patch $^

# The unit tests start a JVM (java Check) in their working directory, UNIT_DIR:
# its crash, an hs_err file or a core there, fails them (bench/crash.sh).
agent-test: $(UNIT_DIR)/unit $(UNIT_DIR)/classes/Check.class $(UNIT_DIR)/patch/jdk/internal/misc/OrcaTestHooks.class
	bash agent/check-includes.sh agent
	bash agent/test/check_includes_test.sh
	(cd $(UNIT_DIR) && exec ./unit . $(abspath $(JAVA_HOME))); \
	rc=$$?; source bench/crash.sh && crash_check agent-test $(UNIT_DIR) || rc=1; exit $$rc

# Integration tests (./integration) start real JVMs with bin/orca and the agent,
# so everything is built first.
test: bin/orca check-tracked agent-test agent-aarch64
	bash agent/check-safe.sh $(LIB)
	go vet ./...
	@# The integration tests write which JDKs they ran on to JDK_SUMMARY (integration/harness_test.go);
	@# go test shows a passing package's output only with -v, so it is printed here.
	@rm -f $(JDK_SUMMARY)
	ORCA_JDK_SUMMARY=$(JDK_SUMMARY) go test -timeout $(GOTEST_TIMEOUT) $(GOTEST_FLAGS) ./...; rc=$$?; \
	if [ -f $(JDK_SUMMARY) ]; then cat $(JDK_SUMMARY); \
	else echo "integration: go test reused its cached result, no JDK summary (GOTEST_FLAGS=-count=1 runs the tests again)"; fi; \
	exit $$rc
	@$(MAKE) --no-print-directory fuzz-smoke

# fuzz-smoke: a short fuzz of the Go fuzzers (part of make test; 1-2 min in
# all on 2 cores, as busy as they are).
fuzz-smoke:
	@# -fuzzminimizetime 0: Go minimizes each input that adds coverage
	@# (quadratically many candidates, up to 60 s by default) before counting
	@# it, which left a 20 s smoke at 0 execs/sec; a smoke wants executions,
	@# not small inputs. At 1s each the minimizing still took most of the
	@# smoke (FuzzCompact: 172 new inputs, 6 106 of 60 000 executions in
	@# 3m42s from an empty cache; docs/perf/2026-11-30-test-time.md); 0 turns
	@# it off: each execution counted is a fuzzed input (before, the minimizer's
	@# calls were counted among them); a crasher is written to testdata/fuzz as found.
	@# A count (Nx), not a duration: with -fuzztime 20s Go 1.26's coordinator
	@# can report its own deadline as a failure ("context deadline exceeded",
	@# no input: go.dev/issue/75804; a fresh-clone CI run on a busy machine).
	@# The readers' FuzzEvents, FuzzCompact (the compact encoding's decoder)
	@# and FuzzFraming (its chunks damaged, each run reading a recording
	@# twice) about 15-20 s each here; the others 3-15 s each (with the build);
	@# FuzzReportStreamed (three models and reports an input) ~250 a second;
	@# FuzzReportSynth, FuzzExportSynth, FuzzViewSynth (the same of a
	@# recording orca-gen writes, up to ~4 000 events sealed at each) ~15,
	@# ~5 and ~3 a second;
	@# FuzzExportSpilled and FuzzViewSpilled (every export, every answer of
	@# the viewer, of two models an input, sealed after every event since
	@# 2026-12-05: twice the time) ~50 s each at 1000.
	@# A fuzzer missing from its package fails the smoke: the list is every
	@# func Fuzz of the tree (docs/tree_test.go, TestFuzzersListed).
	@for f in $(FUZZERS); do \
		pkg=$${f%%:*}; rest=$${f#*:}; name=$${rest%%:*}; n=$${rest##*:}; \
		echo "go test -run '^$$' -fuzz '^'$$name'$$' -fuzztime $$n -fuzzminimizetime 0 ./$$pkg"; \
		go test -run '^$$' -fuzz "^$$name\$$" -fuzztime $$n -fuzzminimizetime 0 ./$$pkg || exit 1; \
	done

# FUZZERS: package:Fuzzer:executions, every Go fuzzer of the tree but those
# held in FUZZERS_HELD.
FUZZERS := internal/reader:FuzzEvents:60000x internal/reader:FuzzCompact:60000x internal/reader:FuzzFraming:20000x \
	internal/reader:FuzzPlain:30000x internal/reader:FuzzMethods:40000x internal/format:FuzzText:30000x \
	internal/model:FuzzModel:10000x internal/model:FuzzModelText:60000x internal/model:FuzzModelLines:20000x \
	internal/model:FuzzReportStreamed:3000x internal/model:FuzzReportSynth:300x \
	internal/export:FuzzExportSpilled:1000x internal/export:FuzzExportSynth:100x \
	internal/web:FuzzViewSpilled:1000x internal/web:FuzzViewSynth:60x \
	internal/jfrimport:FuzzImport:20000x

# FUZZERS_HELD: fuzzers make test does not fuzz (their seed corpus runs with
# the unit tests) while they find a known bug within seconds, which would
# fail make test by chance; package:Fuzzer, each with the bug beside it.
# None now (FuzzModelText was, until the fold ended a park at a contention
# of its thread: git log -S FUZZERS_HELD).
FUZZERS_HELD :=

# check-tracked fails when git tracks a build product (an executable, a
# shared library or an object file): binaries are built, not committed.
check-tracked:
	@if command -v file >/dev/null 2>&1 && git rev-parse --git-dir >/dev/null 2>&1; then \
		bad=$$(git ls-files -z | xargs -0 -r file --mime-type | grep -E ': *application/(x-(pie-)?executable|x-sharedlib|x-object|x-archive)$$'); \
		if [ -n "$$bad" ]; then echo "orca: build products tracked by git (git rm --cached them):" >&2; echo "$$bad" >&2; exit 1; fi; \
	fi

# ---- demo ------------------------------------------------------------------

build/demo/Demo.class: testdata/java/demo/Demo.java | check-deps
	@mkdir -p build/demo
	$(JAVA_HOME)/bin/javac --release 17 -d build/demo $<

# --force: the demo's recording is ours to replace on every run.
demo: bin/orca build/demo/Demo.class
	bin/orca record --force -o build/demo-run -- $(JAVA_HOME)/bin/java -cp build/demo Demo
	bin/orca report build/demo-run
	@echo "Browse it: bin/orca view build/demo-run"

# ---- bench -----------------------------------------------------------------

bench: bin/orca
	@if [ -x bench/run.sh ]; then ./bench/run.sh; \
	elif [ -f bench/run.sh ]; then bash bench/run.sh; \
	else echo "orca: no bench/run.sh yet"; fi
	bash bench/report/run.sh
	bash bench/report/encodings.sh
	bash bench/report/long.sh
	bash bench/accuracy.sh
	go test -run '^$$' -bench Viewer -benchtime 1x ./internal/web
	go test -run '^$$' -bench EdgeSpill -benchtime 3x ./internal/model
	go test -run '^$$' -bench 'Export/(perfetto|chrome)$$' -benchtime 3x ./internal/export

# pgo: cmd/orca/default.pgo made again, the CPU profile go build compiles orca with (profile-guided
# optimisation), from orca built without it reading orca-gen's recordings as users do (bench/pgo.sh;
# docs/perf/2026-12-05-pgo.md). Commit the new profile when the hot code has changed much.
pgo:
	bash bench/pgo.sh

# ---- long tests -------------------------------------------------------------

# stress: TestVirtualStress (integration/virtual_stress_test.go: VirtualStress.java recorded
# ORCA_STRESS_RUNS times per configuration, each run checked against the program's counts),
# TestSampleStress (the same file: SampleStorm.java with the samplers at 1 ms,
# ORCA_STRESS_RUNS times per configuration, ~6 s a run; a crash, a hang or a count off fails it) and
# TestVirtualLongWait ORCA_LONG_WAIT_RUNS times per collector (enough to catch a one-in-ten
# defect). A crash's hs_err file is kept in build/stress/crash-* (TestSampleStress's in build/crash,
# as every integration test's: internal/crash); recordings of failed runs stay
# (ORCA_KEEP). The go test log is build/stress/go-test.log.
STRESS_RUNS ?= 3
LONG_WAIT_RUNS ?= 30

stress: bin/orca
	@mkdir -p build/stress
	@set -o pipefail; rc=0; \
	ORCA_STRESS=1 ORCA_STRESS_RUNS=$(STRESS_RUNS) ORCA_LONG_WAIT_RUNS=$(LONG_WAIT_RUNS) ORCA_KEEP=1 \
	ORCA_STRESS_DIR=$(CURDIR)/build/stress \
		go test -count=1 -v -run 'TestVirtualStress|TestSampleStress|TestVirtualLongWait' -timeout 90m ./integration \
		2>&1 | tee build/stress/go-test.log | grep -E '^(=== RUN|\s*--- FAIL|FAIL|ok)|runs failed|crashed' || rc=$$?; \
	echo; echo "TestVirtualStress (build/stress/summary.txt):"; cat build/stress/summary.txt 2>/dev/null; \
	echo; echo "TestSampleStress (build/stress/sample-summary.txt):"; cat build/stress/sample-summary.txt 2>/dev/null; \
	echo; echo "TestVirtualLongWait:"; grep -E 'runs failed' build/stress/go-test.log; \
	exit $$rc

clean:
	rm -rf bin build $(LIB)
