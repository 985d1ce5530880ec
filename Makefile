# schedlab -- build, run and test.
#
#   make run     install what is missing, build, serve http://127.0.0.1:8080
#   make test    install what is missing, build (also ASan/UBSan), run every test
#   make bench   speed and memory table -> bench/results.json
#   make fuzz    run every importer's libFuzzer harness for FUZZ_SECONDS each
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
ALL_CFLAGS = $(CFLAGS_BASE) $(OPT) $(SAN) $(PKG_CFLAGS) $(CFLAGS)
LDLIBS   = $(PKG_LIBS) -liberty -lm -lpthread
PORT     ?= 8080
FUZZ_SECONDS ?= 60
SMOKE_SECONDS ?= 4

SIMCORE_SRC  := $(sort $(wildcard simcore/*.c))
IMP_SRC      := $(sort $(wildcard importers/*.c))
DB_SRC       := $(sort $(wildcard db/*.c))
SERVER_SRC   := $(sort $(filter-out server/main.c,$(wildcard server/*.c)))
UNIT_SRC     := $(sort $(wildcard tests/unit/test_*.c))
FUZZ_SRC     := $(sort $(wildcard fuzz/fuzz_*.c))
HEADERS      := $(wildcard simcore/*.h importers/*.h db/*.h server/*.h tests/unit/*.h)

obj = $(patsubst %.c,$(BUILD)/%.o,$(1))
# every db/NAME.sql is a migration step, embedded as db_NAME_sql
LIB_OBJ = $(call obj,$(SIMCORE_SRC) $(IMP_SRC) $(DB_SRC) $(SERVER_SRC)) \
          $(patsubst db/%.sql,$(BUILD)/gen/%_sql.o,$(wildcard db/*.sql))

.PHONY: all build deps run test unit unit-asan api-test browser-test fuzz fuzz-smoke \
        recorder bench clean asan web-vendor install
.DEFAULT_GOAL := build

all build: $(BUILD)/schedlab schedlab web-vendor

deps:
	@tools/install-deps.sh

# ./schedlab is what the README and the tests run.
schedlab: $(BUILD)/schedlab
	@cp $< $@

$(BUILD)/schedlab: $(BUILD)/server/main.o $(BUILD)/libschedlab.a
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/libschedlab.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

# `schedlab --version` names the demangler's version (libiberty has no call for it).
LIBIBERTY_VERSION := $(shell dpkg-query -W -f='$${Version}' libiberty-dev 2>/dev/null)
$(BUILD)/server/main.o: ALL_CFLAGS += -DSCHEDLAB_LIBIBERTY_VERSION='"$(or $(LIBIBERTY_VERSION),(version unknown))"'

$(BUILD)/%.o: %.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

# simcore is pure C11 and libc (DESIGN §2): it compiles with no package's
# flags at all, like Lua's core apart from its libraries, so an include of
# jansson, SQLite or libmicrohttpd there fails the build.
SIMCORE_CFLAGS = $(CFLAGS_BASE) $(OPT) $(SAN) $(CFLAGS)
$(BUILD)/simcore/%.o: simcore/%.c $(wildcard simcore/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(SIMCORE_CFLAGS) -c -o $@ $<

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
	rm -rf $(DESTDIR)$(PREFIX)/share/schedlab/web $(DESTDIR)$(PREFIX)/share/schedlab/scenarios
	cp -R web scenarios $(DESTDIR)$(PREFIX)/share/schedlab/
	install -m 644 $(BUILD)/schedlab.1 $(DESTDIR)$(PREFIX)/share/man/man1/schedlab.1

# ---- tests ------------------------------------------------------------------

UNIT_BIN = $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libschedlab.a $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(BUILD)/libschedlab.a $(LDLIBS) -lcmocka

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
TEST_ENV = SCHEDLAB_TRACES=$(abspath $(SCHEDLAB_TRACES)) SCHEDLAB_FIXTURES=$(CURDIR)/$(BUILD)/fixtures

unit: $(UNIT_BIN) $(FIXTURES)
	@set -e; for t in $(UNIT_BIN); do echo "== $$t"; $(TEST_ENV) $$t; done

asan:
	$(MAKE) --no-print-directory BUILD=$(ASAN_BUILD) CC=clang OPT=-O1 \
	    SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
	    $(ASAN_BUILD)/schedlab $(patsubst tests/unit/%.c,$(ASAN_BUILD)/tests/%,$(UNIT_SRC))

unit-asan: asan $(FIXTURES)
	@set -e; for t in $(patsubst tests/unit/%.c,$(ASAN_BUILD)/tests/%,$(UNIT_SRC)); do \
	    echo "== $$t (ASan/UBSan)"; ASAN_OPTIONS=detect_leaks=1 $(TEST_ENV) $$t; done

api-test: build $(FIXTURES)
	SCHEDLAB_BIN=$(CURDIR)/schedlab SCHEDLAB_BUILD=$(BUILD) $(TEST_ENV) node --test tests/api/*.test.mjs

browser-test: build
	SCHEDLAB_BIN=$(CURDIR)/schedlab node --test tests/browser/*.test.mjs

FUZZ_BIN = $(patsubst fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRC))
FUZZ_CFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -g -O1 \
              -fsanitize=fuzzer,address,undefined $(PKG_CFLAGS)
FUZZ_LIB_SRC = $(SIMCORE_SRC) $(IMP_SRC) server/scenario.c server/scenario_tasks.c server/trace_json.c server/jw.c server/jsonr.c \
               server/units.c server/device_json.c server/taskset.c server/idset.c db/bpage_codec.c

$(BUILD)/fuzz/%: fuzz/%.c $(FUZZ_LIB_SRC) $(HEADERS)
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -o $@ $< $(FUZZ_LIB_SRC) $(LDLIBS)

# Each harness runs on its seed corpus (fuzz/corpus/NAME), then explores.
define run_fuzz
	@set -e; for f in $(FUZZ_BIN); do n=$$(basename $$f); mkdir -p $(BUILD)/fuzz-work/$$n; \
	    echo "== $$n ($(1) s)"; \
	    $$f -max_total_time=$(1) -max_len=65536 -print_final_stats=0 $(BUILD)/fuzz-work/$$n fuzz/corpus/$${n#fuzz_} \
	        > $(BUILD)/fuzz-work/$$n.log 2>&1 || { tail -40 $(BUILD)/fuzz-work/$$n.log; exit 1; }; \
	    tail -1 $(BUILD)/fuzz-work/$$n.log; done
endef

fuzz-smoke: $(FUZZ_BIN)
	$(call run_fuzz,$(SMOKE_SECONDS))

# `make fuzz` keeps what it finds: each harness explores from its corpus in
# the repository (fuzz/corpus/NAME) and the inputs it found that add
# coverage are merged into that corpus (the seeds stay as they are), so the
# corpus grows by what is new, run after run. The last line per harness says
# how long it ran clean and how many runs.
fuzz: $(FUZZ_BIN)
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

test: deps
	$(MAKE) --no-print-directory build
	$(MAKE) --no-print-directory recorder    # before api-test: recorder_play.test.mjs runs it
	$(MAKE) --no-print-directory unit
	$(MAKE) --no-print-directory unit-asan
	$(MAKE) --no-print-directory api-test
	$(MAKE) --no-print-directory browser-test
	$(MAKE) --no-print-directory fuzz-smoke
	@echo "make test: all suites passed"

bench: deps build
	$(MAKE) --no-print-directory -f bench/bench.mk BUILD=$(BUILD) PKGS="$(PKGS)"

clean:
	rm -rf build build-* schedlab web/vendor
