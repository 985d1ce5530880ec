# bench.mk -- `make bench`: build the drivers against the normal build, then
# bench/run.mjs runs them side by side, prints a table and writes
# bench/results.json. Called from the top Makefile with BUILD set.
BUILD ?= build
PKGS ?= libmicrohttpd jansson sqlite3 libarchive
include_flags = $(shell pkg-config --cflags $(PKGS))
libs = $(BUILD)/libschedlab.a $(shell pkg-config --libs $(PKGS)) -liberty -lm -lpthread
BENCH_CFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -O2 -g -Wall -Wextra -Werror $(include_flags)

# bench/run.mjs also runs $(BUILD)/schedlab itself (the QoS sweep rows, bench/qos.mjs),
# which `make bench` builds first (the top Makefile's bench: build).
.PHONY: bench
bench: $(BUILD)/bench/bench_sim $(BUILD)/bench/bench_import $(BUILD)/bench/bench_rta $(BUILD)/bench/bench_tasks $(BUILD)/bench/bench_warp \
       $(BUILD)/bench/bench_pytorch $(BUILD)/bench/bench_cohort
	BENCH_BIN=$(BUILD)/bench node bench/run.mjs

$(BUILD)/bench/%: bench/%.c $(BUILD)/libschedlab.a
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_CFLAGS) -o $@ $< $(libs)
