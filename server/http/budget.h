/* budget.h -- the work budget of one request (issue 16): a scenario's work
 * is estimated from its configuration before anything runs, and work past
 * the budget is refused up front (HTTP 422 with the numbers) instead of
 * holding the server for minutes.
 *
 * Estimated per scenario, over every run (1 + variants):
 *   blocks    thread blocks of all kernels, times the runs; with "cohorts"
 *             (issue 28) the records a run keeps: a kernel of one block
 *             time about two per SM (its first wave or a stretch of waves,
 *             then its last: simcore/cohort.c), and each run then fails
 *             past `blocks` records (scn_limit_records)
 *   ops       host operations of the scenario (kernels, copies, syncs)
 *   variants  the scenario's variants
 *   events    simulated events: 2 per block and 4 per op, times the runs
 *   seconds   simulated time of the longest run, bounded above: the last
 *             issue time plus every kernel's waves (blocks / SMs, rounded
 *             up) of its longest block time, plus every copy's transfer
 *   streams   streams of the run with the most (declared and NULL streams)
 *   processes processes (address spaces) of that run
 *   tasks     real-time tasks of the run with the most
 * (issue 31: the simulator's set-up is quadratic in streams, processes and
 * priority levels -- 60,000 streams and one op took 56 s -- so these are
 * counted first, from the parsed scenario, whose stream lookups are hashed,
 * and past the budget refused before any run is configured.)
 *
 * What is not refused runs at once (201) when its events are at most
 * `sync` (never a scenario with cohorts, whose cost is an estimate), else
 * on the job queue (202); imports with bodies over
 * `sync_bytes` always go to the job queue.
 *
 * `serve --budget KEY=N,KEY=N` sets any of: blocks, ops, variants, events,
 * seconds, streams, processes, tasks, sync, sync_bytes, queue (jobs queued or running at most; past
 * it 503), workers (job threads), and for sweeps started from the page
 * (POST /api/sweeps, sweep_api.h) sweep_analyses (tasksets x points x
 * approaches of a schedulability sweep), sweep_cycles (simulated cycles of a
 * QoS sweep: (pair, goal, scheme) points x the template's window) and sweep_threads (threads of one sweep job).
 * Numbers are decimal digits alone (no sign, exponent or hex: strtod took
 * "0x10"), each key at most once. */
#ifndef SERVER_BUDGET_H
#define SERVER_BUDGET_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "../formats/scenario.h"

typedef struct budget {
    long long blocks, ops, variants, events, seconds;
    long long sync_events, sync_bytes, queue, workers;
    long long streams, processes, tasks;
    long long sweep_analyses, sweep_cycles, sweep_threads;
} budget;

typedef struct budget_work {
    long long blocks, ops, variants, events;
    double seconds;
    long long streams, processes, tasks;
    bool cohorts;            /* blocks counts records: a scenario with "cohorts" */
} budget_work;

void budget_default(budget *b);
/* "blocks=2e7,ops=100000"; -1 with a message naming the key otherwise. */
int budget_parse(const char *spec, budget *b, char *err, size_t errlen);
int budget_estimate(const scn_scenario *s, budget_work *w, char *err, size_t errlen);
/* Before any parse (issue 31): the elements of the top-level arrays
 * "streams", "ops", "variants" and "tasks" of a scenario's text, counted in
 * one pass over the bytes (strings and nesting followed, nothing built), so
 * that a body past the budget's streams, ops, variants or tasks is refused
 * before jansson builds its tree; the other fields are 0. Not a validator:
 * text that is not JSON gets some counts and fails in the parse after. */
void budget_prescan(const char *text, size_t len, budget_work *w);
/* NULL when the work fits; else a new object {"error", "work", "budget"}
 * whose error names each limit passed with both numbers. */
json_t *budget_check(const budget *b, const budget_work *w);
json_t *budget_json(const budget *b);

#endif
