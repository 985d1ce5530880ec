# schedlab -- build, run and test.
#
#   make run     install what is missing, build, serve http://127.0.0.1:8080
#   make test    install what is missing, build (also ASan/UBSan), run every test
#   make bench   speed and memory table -> bench/results.json
#   make fuzz    run every importer's libFuzzer harness for FUZZ_SECONDS each
#   make analyze clang's static analyzer over the C, failing on any report
#   make mutation  single-line bugs the unit tests must catch (tests/mutation/)
#   make install PREFIX=/usr/local   binary, dashboard, scenarios, man page
#
# BUILD names the output folder, so two builds (or two people) never write
# the same objects: `make BUILD=build-mine`.

BUILD    ?= build
ASAN_BUILD ?= build-asan
CC       ?= cc
PKGS     := libmicrohttpd jansson sqlite3 libarchive
OPT      ?= -O2
CFLAGS_BASE := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Wall -Wextra -Werror \
               -Wshadow -Wstrict-prototypes -Wmissing-prototypes -g
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CFLAGS   ?=
ALL_CFLAGS = $(CFLAGS_BASE) $(OPT) $(SAN) $(COV) $(PKG_CFLAGS) $(LAYER_INC) $(CFLAGS)
LDLIBS   = $(PKG_LIBS) -liberty -lm -lpthread
PORT     ?= 8080
FUZZ_SECONDS ?= 60
# make test's fuzz smoke run: each harness replays its corpus whole (all of
# it, however long that takes), then explores for what is left of this
SMOKE_SECONDS ?= 1
# make test runs its builds and its suites JOBS at a time (default: the CPUs)
JOBS     ?= $(shell nproc 2>/dev/null || echo 2)

SIMCORE_SRC  := $(sort $(wildcard simcore/*.c))
IMP_SRC      := $(sort $(wildcard importers/*.c))
DB_SRC       := $(sort $(wildcard db/*.c))
# server/ is four layers, each a folder (docs/modules.md): cli -> http ->
# app -> formats, arrows only downward. The sources follow the folders.
SERVER_LAYERS := formats app http cli
SERVER_SRC   := $(sort $(filter-out server/cli/main.c,$(foreach l,$(SERVER_LAYERS),$(wildcard server/$(l)/*.c))))
UNIT_SRC     := $(sort $(wildcard tests/unit/test_*.c))
FUZZ_SRC     := $(sort $(wildcard fuzz/fuzz_*.c))
# everything but main.c: the library the binary, the unit tests and the
# recorder's player link
LIB_SRC      := $(SIMCORE_SRC) $(IMP_SRC) $(DB_SRC) $(SERVER_SRC)
SQL_SRC      := $(sort $(wildcard db/*.sql))

obj = $(patsubst %.c,$(BUILD)/%.o,$(1))
# every db/NAME.sql is a migration step, embedded as db_NAME_sql
LIB_OBJ = $(call obj,$(LIB_SRC)) $(patsubst db/%.sql,$(BUILD)/gen/%_sql.o,$(SQL_SRC))

# Each object depends on the headers it includes, as the compiler found them
# (-MMD writes $(BUILD)/x/y.d beside y.o; -MP adds a target per header so a
# deleted header is no error): touching one header rebuilds what includes it.
DEPFLAGS = -MMD -MP
# An object without its dependency file (built before there were any) is
# rebuilt once, so its headers are known from then on. clang writes the .d
# after the object: the object is touched after it, or it would look stale
# (the manual's "Automatic Prerequisites", Paul Smith's POSTCOMPILE).
%.d: ;
.PRECIOUS: %.d
POSTCOMPILE = @touch $@
-include $(patsubst %.o,%.d,$(LIB_OBJ) $(BUILD)/server/cli/main.o \
           $(call obj,$(UNIT_SRC)) $(patsubst fuzz/%.c,$(BUILD)/fuzz-obj/%.o,$(FUZZ_SRC)))

.PHONY: all build deps run test test-run test-checks unit unit-asan api-test browser-test suites screenshots fuzz fuzz-smoke \
        analyze mutation \
        fuzz-bin recorder bench clean asan asan-bin tsan web-vendor install
.DEFAULT_GOAL := build

all build: $(BUILD)/schedlab schedlab web-vendor $(BUILD)/layers.ok

deps:
	@tools/install-deps.sh

# ./schedlab is what the README and the tests run.
schedlab: $(BUILD)/schedlab
	@cp $< $@

$(BUILD)/schedlab: $(BUILD)/server/cli/main.o $(BUILD)/libschedlab.a
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/libschedlab.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

# `schedlab --version` names the demangler's version (libiberty has no call for it).
LIBIBERTY_VERSION := $(shell dpkg-query -W -f='$${Version}' libiberty-dev 2>/dev/null)
$(BUILD)/server/cli/main.o: ALL_CFLAGS += -DSCHEDLAB_LIBIBERTY_VERSION='"$(or $(LIBIBERTY_VERSION),(version unknown))"'

$(BUILD)/%.o: %.c $(BUILD)/%.d
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -c -o $@ $<
	$(POSTCOMPILE)

# A server/ file includes a header of its own folder or of a folder below
# it by its bare name ("store.h"): each layer's objects see only their own
# folder and the ones below (-iquote), so formats/ writing "store.h" (app/)
# fails to compile. Everything else (cli/, tests, fuzz) sees all four.
# tools/check-layers.sh then reads the dependency files of every server
# object, which name each header the compiler really opened, and fails the
# build on an upward one however it was reached ("../app/store.h" too).
LAYER_INC = $(foreach l,$(SERVER_LAYERS),-iquote server/$(l))
$(BUILD)/server/formats/%.o: LAYER_INC = -iquote server/formats
$(BUILD)/server/app/%.o: LAYER_INC = -iquote server/app -iquote server/formats
$(BUILD)/server/http/%.o: LAYER_INC = -iquote server/http -iquote server/app -iquote server/formats

$(BUILD)/layers.ok: tools/check-layers.sh $(LIB_OBJ) $(BUILD)/server/cli/main.o
	@tools/check-layers.sh $(BUILD) $(SERVER_LAYERS)
	@touch $@

# simcore is pure C11 and libc (DESIGN §2): it compiles with no package's
# flags at all, like Lua's core apart from its libraries, so an include of
# jansson, SQLite or libmicrohttpd there fails the build.
SIMCORE_CFLAGS = $(CFLAGS_BASE) $(OPT) $(SAN) $(CFLAGS)
$(BUILD)/simcore/%.o: simcore/%.c $(BUILD)/simcore/%.d
	@mkdir -p $(dir $@)
	$(CC) $(SIMCORE_CFLAGS) $(DEPFLAGS) -c -o $@ $<
	$(POSTCOMPILE)

$(BUILD)/gen/%_sql.c: db/%.sql tools/embed.sh
	@mkdir -p $(dir $@)
	tools/embed.sh db_$*_sql < $< > $@

$(BUILD)/gen/%_sql.o: $(BUILD)/gen/%_sql.c
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

# Chart.js is served from web/vendor (copied from node_modules, not committed).
web-vendor: web/vendor/chart.umd.min.js
web/vendor/chart.umd.min.js: node_modules/chart.js/dist/chart.umd.min.js
	@mkdir -p web/vendor
	cp $< $@
node_modules/chart.js/dist/chart.umd.min.js:
	@tools/install-deps.sh

run: deps build
	./schedlab serve --port $(PORT)

# ---- install ----------------------------------------------------------------
# make install PREFIX=/opt/schedlab [DESTDIR=/staging]: the binary, the
# dashboard and the shipped scenarios (PREFIX/share/schedlab, where the
# binary looks first, relative to itself: the tree can be moved whole) and
# the man page generated from the --help texts.
PREFIX  ?= /usr/local
DESTDIR ?=
$(BUILD)/schedlab.1: $(BUILD)/schedlab tools/make-man.sh
	tools/make-man.sh $(BUILD)/schedlab > $@.tmp && mv $@.tmp $@

install: $(BUILD)/schedlab $(BUILD)/schedlab.1 web-vendor
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/schedlab \
	    $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(BUILD)/schedlab $(DESTDIR)$(PREFIX)/bin/schedlab
	rm -rf $(DESTDIR)$(PREFIX)/share/schedlab/web $(DESTDIR)$(PREFIX)/share/schedlab/scenarios \
	    $(DESTDIR)$(PREFIX)/share/schedlab/sweeps
	cp -R web scenarios sweeps $(DESTDIR)$(PREFIX)/share/schedlab/
	install -m 644 $(BUILD)/schedlab.1 $(DESTDIR)$(PREFIX)/share/man/man1/schedlab.1

# ---- tests ------------------------------------------------------------------

UNIT_BIN = $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))
ASAN_UNIT_BIN = $(patsubst tests/unit/%.c,$(ASAN_BUILD)/tests/%,$(UNIT_SRC))
# tools/run-units.sh starts the binaries in the order given, JOBS at a
# time: the slow ones first, ASan's and the plain build's (CPU seconds
# alone on the 2-core AMD EPYC: under ASan test_imp_pytorch 10,
# test_h200_mostroom 10; plain test_contexts_xcheck 15, test_replay_traces
# 13, test_h200_mostroom 10, test_sim_stream 6), so that none starts last
# and runs on alone.
# make test runs them niced beside the API tests; in alphabetical order,
# ASan's first, the plain test_sim_stream started last and the unit phase
# ended 175 s after the API tests; slow ones first, 122 s (2026-11-30,
# before test_h200_mostroom and test_sim_stream took less).
UNIT_SLOW = test_h200_mostroom test_imp_pytorch test_imp_stream test_sim_stream \
            test_contexts_xcheck test_replay_traces test_pyramid
slow_only = $(filter $(addprefix $(1)/tests/,$(UNIT_SLOW)),$(2))
slow_not = $(filter-out $(addprefix $(1)/tests/,$(UNIT_SLOW)),$(2))
UNIT_ORDER = $(call slow_only,$(BUILD),$(UNIT_BIN)) $(call slow_not,$(BUILD),$(UNIT_BIN))
ASAN_UNIT_ORDER = $(call slow_only,$(ASAN_BUILD),$(ASAN_UNIT_BIN)) \
                  $(call slow_not,$(ASAN_BUILD),$(ASAN_UNIT_BIN))
ALL_UNIT_ORDER = $(call slow_only,$(ASAN_BUILD),$(ASAN_UNIT_BIN)) \
                 $(call slow_only,$(BUILD),$(UNIT_BIN)) \
                 $(call slow_not,$(ASAN_BUILD),$(ASAN_UNIT_BIN)) \
                 $(call slow_not,$(BUILD),$(UNIT_BIN))

# a test's object ($(BUILD)/tests/unit/test_x.o) comes from the pattern rule
# above, with its dependency file, at -O1: a test's own code sets up and
# compares, the work is the library's (-O2), and the 82 objects took 15
# CPU-s to compile at -O1 against 25 at -O2 (gcc 12, Intel Xeon, 2026-12-02).
# `make OPT=...` sets them too (the ASan tree's -O1).
$(BUILD)/tests/unit/%.o: OPT = -O1
# (UNIT_LIB: the library they link)
UNIT_LIB ?= $(BUILD)/libschedlab.a
$(UNIT_BIN): $(BUILD)/tests/%: $(BUILD)/tests/unit/%.o $(UNIT_LIB)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(UNIT_LIB) $(LDLIBS) -lcmocka
# the recorder's host-side check, shared with tools/recorder/mostroom.cu
$(BUILD)/tests/test_mostroom_check: tools/recorder/mostroom_check.h

# Synthetic traces, one per format, written by a script (never committed):
# what the importer tests read on a fresh clone.
FIXTURES = $(BUILD)/fixtures/.stamp
$(FIXTURES): tests/fixtures/make_fixtures.sh tests/fixtures/make_pytorch_fixtures.sh
	tests/fixtures/make_fixtures.sh $(BUILD)/fixtures
	@touch $@

# The real traces are not in the repository: tests that need them look in
# SCHEDLAB_TRACES and are skipped (one line each) when it is absent, or fail
# with SCHEDLAB_REQUIRE_TRACES=1 (.ci/run).
SCHEDLAB_TRACES ?= $(CURDIR)/../shared/traces
# The tests' throw-away databases and files go to a tmpfs where there is one
# (TMPDIR, which node's os.tmpdir(), the server's upload bodies and the C
# tests' test_db_util.h follow): on a disk every SQLite commit of a test
# waits for an fsync, which on a shared machine is most of a test's time.
# Only with 2 GiB free there (a container's /dev/shm is often 64 MiB; the
# seed database alone is ~60 MB a server); else /tmp as before.
TEST_TMPDIR := $(shell [ -d /dev/shm ] && [ -w /dev/shm ] && \
                 [ "$$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 { print $$4 }')" -ge 2097152 ] 2>/dev/null \
                 && echo /dev/shm || echo /tmp)
TEST_ENV = SCHEDLAB_TRACES=$(abspath $(SCHEDLAB_TRACES)) SCHEDLAB_FIXTURES=$(CURDIR)/$(BUILD)/fixtures \
           TMPDIR=$(TEST_TMPDIR) SCHEDLAB_SHOTS=$(SHOTS)
# `make test SHOTS=1` (or browser-test, suites): the browser tests also take
# their pictures of the pages, into tests/browser/out/ (harness.mjs, shot;
# off by default: nothing asserts on them, and they cost CPU)
SHOTS ?=

# tools/run-units.sh runs the binaries JOBS at a time, each into its own log
# (printed when it fails), and names the slowest, with glibc's default
# malloc: asking it for transparent huge pages (GLIBC_TUNABLES
# glibc.malloc.hugetlb=1, here until 2026-12-02) once saved the replay and
# pyramid tests page faults, but on a machine whose memory has been in use
# a while each huge page costs the kernel a compaction (transparent_hugepage
# defrag "madvise"), and the 82 plain tests took 129.5 CPU-s with it against
# 114.6 without (25.0 s of system time against 9.0; test_replay_traces 21.3
# against 10.9 CPU-s; JOBS=2, Intel Xeon, 2026-12-02).
unit: $(UNIT_BIN) $(FIXTURES)
	@$(TEST_ENV) tools/run-units.sh $(JOBS) $(UNIT_ORDER)

# The unit tests again under ASan/UBSan: each test and the library (LIB_SRC)
# compiled with clang and the sanitizers, no recovery, in $(ASAN_BUILD).
# The fuzz harnesses link the same library (FUZZ_BIN below), built once:
# in this tree (FUZZ_COV=1) the parsers -- importers/ and server/formats/,
# what the harnesses explore, the sweep spec and result readers of
# server/app/ and the request body's prescan of server/http/budget.c --
# also carry libFuzzer's coverage
# (fuzzer-no-link: a counter per edge, a callback per comparison), and
# db/bpage_codec.c, which fuzz_bpage explores and the pyramid tests run hot,
# its edge counters only; the rest of the library has none. Coverage
# everywhere made the simulation-heavy tests 4-5 times slower (test_qaws_fig4
# 39 s against 7.4 s of CPU, test_warp_scenarios 22 against 5.1), so that
# it was a library of its own, built a third time (68 CPU-s); the unit tests
# do not see it (the ASan runtime's coverage callbacks do nothing).
# They link with LLVM's lld: a sanitized test binary takes the ASan runtime
# whole, which GNU ld took 0.46 CPU-s a binary to link and lld 0.25 (136
# binaries; the fuzz harnesses likewise).
# Its debug information is line tables only (-gline-tables-only after -g):
# what a sanitizer's report names -- function, file and line of each
# frame, inlined ones too -- without the variables' types and places, which
# gdb wants and the plain tree ($(BUILD), -g) keeps. The ASan tree took 56
# CPU-s instead of 68 to build (AMD EPYC, 2 cores).
ASAN_SAN = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all -gline-tables-only
CLANG_LDFLAGS = -fuse-ld=lld
ASAN_MAKE = $(MAKE) --no-print-directory BUILD=$(ASAN_BUILD) CC=clang OPT=-O1 SAN="$(ASAN_SAN)" FUZZ_COV=1 \
            LDFLAGS="$(CLANG_LDFLAGS)"
ifeq ($(FUZZ_COV),1)
$(BUILD)/importers/%.o $(BUILD)/server/formats/%.o $(BUILD)/server/app/sweep.o \
$(BUILD)/server/app/qos_sweep.o $(BUILD)/server/http/budget.o: COV = -fsanitize=fuzzer-no-link
$(BUILD)/db/bpage_codec.o: COV = -fsanitize-coverage=inline-8bit-counters,pc-table
endif
asan:
	+$(ASAN_MAKE) $(ASAN_UNIT_BIN) $(FUZZ_BIN)

# The server under ThreadSanitizer, for the API tests that run its threads
# at once (tests/api/concurrency.test.mjs, sweep_jobs, kill_restart, ...):
#   make tsan && SCHEDLAB_BIN=$(TSAN_BUILD)/schedlab SCHEDLAB_SEED_DB=... \
#     TSAN_OPTIONS=log_path=/tmp/tsan/log node --test tests/api/concurrency.test.mjs
# then no /tmp/tsan/log.* file. SQLite, jansson and libmicrohttpd are
# Debian's, not instrumented: their own memory is not watched, their
# pthread calls are.
TSAN_BUILD ?= build-tsan
tsan:
	+$(MAKE) --no-print-directory BUILD=$(TSAN_BUILD) CC=clang OPT=-O1 SAN="-fsanitize=thread" \
	    LDFLAGS="$(CLANG_LDFLAGS)" $(TSAN_BUILD)/schedlab

# clang's static analyzer (scan-build) over every file `schedlab` is built
# from, in a tree of its own and from scratch (an object already built is
# not analysed): fails on any report, each with its path through the code
# in $(ANALYZE_BUILD)/report (`scan-view` it, or read the HTML). About six
# minutes on two cores, so `make test` leaves it out; run it after a change
# to the C. An invariant the analyzer cannot see across files is stated
# where it is relied on (an assert, or a value written at the call).
ANALYZE_BUILD ?= build-analyze
analyze: deps
	@rm -rf $(ANALYZE_BUILD)
	scan-build -o $(ANALYZE_BUILD)/report --status-bugs --use-cc=clang \
	    $(MAKE) --no-print-directory BUILD=$(ANALYZE_BUILD) $(ANALYZE_BUILD)/schedlab

# The mutation run: each single-line bug of tests/mutation/mutants.txt (a
# scheduling rule, an analysis term, an importer's unit) applied in turn to
# a copy of the tree, whose unit tests (for the HTTP handlers, the API
# test files its "#@node" lines name) must catch it; fails when one
# survives or its pattern went stale (tests/mutation/run.sh says more; its
# --check finds stale patterns in a second). About two hours on two cores,
# so `make test` leaves it out; run it after changing a rule or its
# tests.
mutation: deps
	JOBS=$(JOBS) tests/mutation/run.sh

# An ASan/UBSan `schedlab` for the API and browser suites, in a tree of its
# own ($(ASAN_BIN_BUILD): the ASan tree's library carries fuzzer coverage
# and stops at the first error). It recovers instead, so that a server
# the tests start reports every error and goes on: run the suites with
# SCHEDLAB_BIN=$$PWD/$(ASAN_BIN_BUILD)/schedlab and
# ASAN_OPTIONS=halt_on_error=0:log_path=DIR/log (the seed database is the
# plain binary's: `make build/test-seed.db`).
ASAN_BIN_BUILD ?= build-asan-bin
asan-bin:
	+$(MAKE) --no-print-directory BUILD=$(ASAN_BIN_BUILD) CC=clang OPT=-O1 \
	    SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fsanitize-recover=address -gline-tables-only" \
	    $(ASAN_BIN_BUILD)/schedlab

# The sanitized unit tests run with a quarantine of 8 MiB instead of ASan's
# 256: freed memory waits there (a use after free is caught while it does),
# and recycled sooner it spares the page faults of fresh memory: the 68
# tests took 135 CPU-s instead of 176 (test_pyramid 12 against 18, with
# half the page faults).
ASAN_TEST_OPTIONS = detect_leaks=1:quarantine_size_mb=8
unit-asan: asan $(FIXTURES)
	@ASAN_OPTIONS=$(ASAN_TEST_OPTIONS) $(TEST_ENV) tools/run-units.sh $(JOBS) $(ASAN_UNIT_ORDER)

# The servers of the API and browser tests start on a copy of one seeded
# database (tests/api/seed.mjs) instead of each storing every shipped
# scenario again.
SEED_DB = $(BUILD)/test-seed.db
$(SEED_DB): schedlab $(wildcard scenarios/*.json scenarios/kernels/*.json) $(wildcard sweeps/*.json sweeps/results/*.json) tests/api/seed.mjs tests/api/server.mjs
	SCHEDLAB_BIN=$(CURDIR)/schedlab TMPDIR=$(TEST_TMPDIR) node tests/api/seed.mjs $@

# node runs the test files JOBS at a time (each file's tests in order, as
# before; the servers take free ports and fresh folders)
api-test: build $(FIXTURES) $(SEED_DB)
	SCHEDLAB_BIN=$(CURDIR)/schedlab SCHEDLAB_BUILD=$(BUILD) SCHEDLAB_SEED_DB=$(CURDIR)/$(SEED_DB) $(TEST_ENV) \
	    node --test --test-concurrency=$(JOBS) tests/api/*.test.mjs

# The browser test files of one run share one Chromium, a context each
# (tests/browser/with_browser.mjs; a file run alone starts its own).
WITH_BROWSER = node tests/browser/with_browser.mjs
browser-test: build $(SEED_DB)
	SCHEDLAB_BIN=$(CURDIR)/schedlab SCHEDLAB_SEED_DB=$(CURDIR)/$(SEED_DB) TMPDIR=$(TEST_TMPDIR) SCHEDLAB_SHOTS=$(SHOTS) \
	    $(WITH_BROWSER) node --test --test-concurrency=$(JOBS) tests/browser/*.test.mjs

# The README's pictures (docs/screenshot.png, docs/img/*.png) taken again by
# the browser tests that draw them; a test run takes them only with SHOTS=1,
# into tests/browser/out/docs/ (harness.mjs, docShot and shot).
SHOT_TESTS = tests/browser/dashboard.test.mjs tests/browser/compare.test.mjs \
             tests/browser/run_view.test.mjs tests/browser/sweeps_page.test.mjs \
             tests/browser/warps.test.mjs tests/browser/qos.test.mjs tests/browser/tasks.test.mjs \
             tests/browser/reference.test.mjs
screenshots: build $(FIXTURES) $(SEED_DB)
	SCHEDLAB_DOC_SHOTS=1 SCHEDLAB_BIN=$(CURDIR)/schedlab SCHEDLAB_SEED_DB=$(CURDIR)/$(SEED_DB) $(TEST_ENV) \
	    $(WITH_BROWSER) node --test --test-concurrency=$(JOBS) $(SHOT_TESTS)

# Both suites as one node run (make test). Their files wait much of the
# time -- for a server's answer, a page's drawing: alone, the API suite kept
# 2 cores 65% busy and the browser one 40% -- so SUITE_JOBS files run at
# once, the longest first (SLOW_SUITES: the line "-- slowest files" that
# tools/slowest-files.mjs prints at the end says which they are), then the
# others in name order.
SUITE_JOBS ?= $(shell echo $$(( $(JOBS) * 2 )))
SLOW_SUITES = tests/api/qos.test.mjs tests/browser/a11y.test.mjs tests/api/qos_parboil.test.mjs tests/api/qos_trio.test.mjs \
              tests/api/qos_parboil_trio.test.mjs tests/api/qos_shipped_results.test.mjs \
              tests/browser/dashboard.test.mjs tests/api/hostile.test.mjs tests/browser/run_view.test.mjs \
              tests/api/shared_machine.test.mjs tests/api/kill_restart.test.mjs tests/browser/cohort_view.test.mjs \
              tests/browser/team.test.mjs tests/api/http_fuzz.test.mjs
SUITE_FILES = $(SLOW_SUITES) $(filter-out $(SLOW_SUITES),$(sort $(wildcard tests/api/*.test.mjs tests/browser/*.test.mjs)))
suites: build $(FIXTURES) $(SEED_DB)
	SCHEDLAB_BIN=$(CURDIR)/schedlab SCHEDLAB_BUILD=$(BUILD) SCHEDLAB_SEED_DB=$(CURDIR)/$(SEED_DB) $(TEST_ENV) \
	    $(WITH_BROWSER) node --test --test-concurrency=$(SUITE_JOBS) \
	    --test-reporter=tap --test-reporter-destination=stdout \
	    --test-reporter=./tools/slowest-files.mjs --test-reporter-destination=stdout $(SUITE_FILES)

# Each harness is its own object (fuzzer-no-link, ASan/UBSan) linked with
# the ASan tree's library, whose parsers carry the coverage (asan above):
# `make fuzz-bin` builds them there.
FUZZ_BIN = $(patsubst fuzz/%.c,$(ASAN_BUILD)/fuzz/%,$(FUZZ_SRC))
FUZZ_CFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -g -O1 \
              -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer \
              -fno-sanitize-recover=all $(PKG_CFLAGS) $(LAYER_INC)

$(ASAN_BUILD)/fuzz-obj/%.o: fuzz/%.c $(ASAN_BUILD)/fuzz-obj/%.d
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) $(DEPFLAGS) -c -o $@ $<
	$(POSTCOMPILE)

$(FUZZ_BIN): $(ASAN_BUILD)/fuzz/%: $(ASAN_BUILD)/fuzz-obj/%.o $(ASAN_BUILD)/libschedlab.a
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) $(CLANG_LDFLAGS) -fsanitize=fuzzer -o $@ $< $(ASAN_BUILD)/libschedlab.a $(LDLIBS)

fuzz-bin:
	+$(ASAN_MAKE) $(FUZZ_BIN)

# Each harness runs on its seed corpus (fuzz/corpus/NAME), then explores.
# (JOBS harnesses at a time; each still runs $(1) s of its own)
define run_fuzz
	@printf '%s\n' $(FUZZ_BIN) | xargs -P $(JOBS) -I{} sh -c 'f={}; n=$$(basename $$f); \
	    mkdir -p $(BUILD)/fuzz-work/$$n; \
	    $$f -max_total_time=$(1) -max_len=65536 -print_final_stats=0 $(BUILD)/fuzz-work/$$n fuzz/corpus/$${n#fuzz_} \
	        > $(BUILD)/fuzz-work/$$n.log 2>&1 || { echo "== $$n FAILED"; tail -40 $(BUILD)/fuzz-work/$$n.log; exit 1; }; \
	    echo "== $$n ($(1) s): $$(tail -1 $(BUILD)/fuzz-work/$$n.log)"'
endef

fuzz-smoke: fuzz-bin
	$(call run_fuzz,$(SMOKE_SECONDS))

# `make fuzz` keeps what it finds: each harness explores from its corpus in
# the repository (fuzz/corpus/NAME) and the inputs it found that add
# coverage are merged into that corpus (the seeds stay as they are), so the
# corpus grows by what is new, run after run. The last line per harness says
# how long it ran clean and how many runs.
fuzz: fuzz-bin
	@set -e; for f in $(FUZZ_BIN); do n=$$(basename $$f); c=fuzz/corpus/$${n#fuzz_}; w=$(BUILD)/fuzz-work/$$n; \
	    mkdir -p $$c $$w; echo "== $$n ($(FUZZ_SECONDS) s, corpus $$c)"; \
	    $$f -max_total_time=$(FUZZ_SECONDS) -max_len=65536 $$w $$c \
	        > $$w.log 2>&1 || { tail -40 $$w.log; exit 1; }; \
	    before=$$(ls $$c | wc -l); \
	    $$f -merge=1 -max_len=65536 $$c $$w > $$w.merge.log 2>&1 || { tail -20 $$w.merge.log; exit 1; }; \
	    echo "$$n: $(FUZZ_SECONDS) s clean, $$(grep -o 'Done [0-9]* runs' $$w.log | tail -1 | cut -d' ' -f2) runs, corpus $$before -> $$(ls $$c | wc -l) files"; \
	done

# The recorder needs nvcc; without it this step says so and moves on.
recorder:
	@if command -v nvcc >/dev/null 2>&1; then $(MAKE) --no-print-directory -C tools/recorder; \
	 else echo "recorder: nvcc not found, skipping the CUDA recorder build"; fi

# Everything is built in one parallel make (the binary, the unit tests, the
# ASan/UBSan tree, the fuzz harnesses, and the seed database as soon as the
# binary is there: one process, which fills the gaps the compilers leave --
# the build alone left about 12 of its 2 x 79 CPU-s idle, and with the seed
# 2 of 2 x 94; Intel Xeon), then the recorder (its own make
# checks libschedlab.a, so not beside the first); then the API and browser
# suites beside the unit tests and the fuzz harnesses' smoke run, those two
# one after the other at a lower priority (nice): the suites' files wait
# much of the time (a server's answer, a page's drawing) and the unit tests
# and the harnesses, all CPU, take what the suites leave instead of running
# before or after them. The plain and the ASan unit tests share one pool of
# JOBS, the ASan ones (slower) first, so that the short plain ones fill the
# pool's tail. Their lines are printed when the suites are done (their logs:
# $(BUILD)/units.log, $(BUILD)/fuzz-smoke.log).
# (each phase's end is stamped with the seconds since the start: "-- make
# test: ... at +N s")
TEST_T0 = $(BUILD)/.test-start
test_phase = @echo "-- make test: $(1) at +$$(( $$(date +%s) - $$(cat $(TEST_T0)) )) s"
# The phases run under tools/keep-warm.sh, which keeps Chromium's headless
# shell, node and clang's libraries in memory while they do, and the tests
# once built (test-checks below): the test machine pages out file pages
# left untouched for a minute and reads its disk slowly, and all of these
# were read back from it again and again (the script says what it cost).
# `make test-run` runs the phases without the first.
test: deps
	@tools/keep-warm.sh $(MAKE) --no-print-directory test-run

test-run:
	@mkdir -p $(BUILD) && date +%s > $(TEST_T0)
	$(MAKE) --no-print-directory -j$(JOBS) build $(UNIT_BIN) $(FIXTURES) asan $(SEED_DB)
	$(MAKE) --no-print-directory -j$(JOBS) recorder    # before api-test: recorder_play.test.mjs runs it
	$(call test_phase,built)
	@tools/keep-warm.sh $(ALL_UNIT_ORDER) $(FUZZ_BIN) fuzz/corpus -- $(MAKE) --no-print-directory test-checks
	$(call test_phase,unit and API and browser tests and fuzzing passed)
	@echo "make test: all suites passed"

# make test's tests, once built (test-run): the unit tests, their binaries
# and the fuzz harnesses with their corpus locked in memory from the start
# (tools/keep-warm.sh: most run minutes after they were built, and were read
# back from disk in the run's last two minutes, both cores waiting on it).
test-checks:
	@t0=$$(cat $(TEST_T0)); \
	 { ASAN_OPTIONS=$(ASAN_TEST_OPTIONS) $(TEST_ENV) nice -n 10 tools/run-units.sh $(JOBS) $(ALL_UNIT_ORDER) \
	       > $(BUILD)/units.log 2>&1; \
	   echo "$$?" > $(BUILD)/units.rc; \
	   echo "-- make test: unit tests done at +$$(( $$(date +%s) - t0 )) s" >> $(BUILD)/units.log; \
	   nice -n 10 $(MAKE) --no-print-directory fuzz-smoke > $(BUILD)/fuzz-smoke.log 2>&1; \
	   echo "$$?" > $(BUILD)/fuzz-smoke.rc; \
	   echo "-- make test: fuzzing done at +$$(( $$(date +%s) - t0 )) s" >> $(BUILD)/fuzz-smoke.log; \
	 } & \
	 $(MAKE) --no-print-directory suites; suites=$$?; \
	 echo "-- make test: API and browser tests done at +$$(( $$(date +%s) - t0 )) s"; \
	 wait; cat $(BUILD)/units.log $(BUILD)/fuzz-smoke.log; \
	 units=$$(cat $(BUILD)/units.rc); fuzz=$$(cat $(BUILD)/fuzz-smoke.rc); \
	 [ "$$suites" = 0 ] || echo "make test: the API and browser tests failed (above)"; \
	 [ "$$units" = 0 ] || echo "make test: unit tests failed (above)"; \
	 [ "$$fuzz" = 0 ] || echo "make test: a fuzz harness failed (above)"; \
	 [ "$$suites" = 0 ] && [ "$$units" = 0 ] && [ "$$fuzz" = 0 ]

bench: deps build
	$(MAKE) --no-print-directory -f bench/bench.mk BUILD=$(BUILD) PKGS="$(PKGS)"

clean:
	rm -rf build build-* schedlab web/vendor
