/* budget.h -- the work budget of one request (issue 16): a scenario's work
 * is estimated from its configuration before anything runs, and work past
 * the budget is refused up front (HTTP 422 with the numbers) instead of
 * holding the server for minutes.
 *
 * Estimated per scenario, over every run (1 + variants):
 *   blocks    thread blocks of all kernels, times the runs
 *   ops       host operations of the scenario (kernels, copies, syncs)
 *   variants  the scenario's variants
 *   events    simulated events: 2 per block and 4 per op, times the runs
 *   seconds   simulated time of the longest run, bounded above: the last
 *             issue time plus every kernel's waves (blocks / SMs, rounded
 *             up) of its longest block time, plus every copy's transfer
 *
 * What is not refused runs at once (201) when its events are at most
 * `sync`, else on the job queue (202); imports with bodies over
 * `sync_bytes` always go to the job queue.
 *
 * `serve --budget KEY=N,KEY=N` sets any of: blocks, ops, variants, events,
 * seconds, sync, sync_bytes, queue (jobs queued or running at most; past
 * it 503), workers (job threads). Numbers may be written 2e7. */
#ifndef SERVER_BUDGET_H
#define SERVER_BUDGET_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "scenario.h"

typedef struct budget {
    long long blocks, ops, variants, events, seconds;
    long long sync_events, sync_bytes, queue, workers;
} budget;

typedef struct budget_work {
    long long blocks, ops, variants, events;
    double seconds;
} budget_work;

void budget_default(budget *b);
/* "blocks=2e7,ops=100000"; -1 with a message naming the key otherwise. */
int budget_parse(const char *spec, budget *b, char *err, size_t errlen);
int budget_estimate(const scn_scenario *s, budget_work *w, char *err, size_t errlen);
/* NULL when the work fits; else a new object {"error", "work", "budget"}
 * whose error names each limit passed with both numbers. */
json_t *budget_check(const budget *b, const budget_work *w);
json_t *budget_json(const budget *b);

#endif
