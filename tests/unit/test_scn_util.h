/* test_scn_util.h -- a shipped scenario's run, from its file through
 * scn_parse_file and sim_run, for the tests that check a scenario against
 * its paper or recording (test_warp_scenarios, test_warp_appendix_b,
 * test_h100_recordings, test_table5, test_contexts_shipped,
 * test_gcaps_example2). Paths are from $SCHEDLAB_ROOT, or the current
 * folder. The kernels of the trace by name: test_sim_util.h's kern(). */
#ifndef TEST_SCN_UTIL_H
#define TEST_SCN_UTIL_H

#include <stdio.h>
#include <stdlib.h>

#include "../../server/formats/scenario.h"
#include "test_sim_util.h"

/* scenarios/FILE (from $SCHEDLAB_ROOT, or .), parsed; the caller frees it
 * (scn_free). */
static inline scn_scenario *scn_load(const char *file) {
    const char *root = getenv("SCHEDLAB_ROOT");
    char path[1024], err[512] = "";
    snprintf(path, sizeof path, "%s%sscenarios/%s", root ? root : "", root ? "/" : "", file);
    scn_scenario *s = NULL;
    if (scn_parse_file(path, &s, err, sizeof err) != 0) fail_msg("%s", err);
    return s;
}

/* The scenario at REL (a path from the repository root: $SCHEDLAB_ROOT,
 * or .), parsed, and the configuration of its run `run_name` in *cfg; the
 * caller frees the scenario (scn_free) after the last use of cfg. */
static inline scn_scenario *scn_open_run(const char *rel, const char *run_name, sim_config *cfg) {
    const char *root = getenv("SCHEDLAB_ROOT");
    char path[1024], err[512] = "";
    snprintf(path, sizeof path, "%s%s%s", root ? root : "", root ? "/" : "", rel);
    scn_scenario *s = NULL;
    if (scn_parse_file(path, &s, err, sizeof err) != 0) fail_msg("%s", err);
    int run = scn_find_run(s, run_name);
    if (run < 0) fail_msg("%s has no run named \"%s\"", rel, run_name);
    assert_int_equal(scn_config(s, (size_t)run, cfg, err, sizeof err), 0);
    return s;
}

/* The run `run_name` of the scenario at REL, simulated into t
 * (trace_init'ed here; the caller frees it). */
static inline void scn_simulate_at(const char *rel, const char *run_name, trace *t) {
    sim_config cfg;
    scn_scenario *s = scn_open_run(rel, run_name, &cfg);
    char err[512] = "";
    trace_init(t);
    if (sim_run(&cfg, t, err, sizeof err) != 0) fail_msg("%s [%s]: %s", rel, run_name, err);
    assert_false(t->oom);
    scn_free(s);
}

/* The device of the run `run_name` of scenarios/FILE, without simulating. */
static inline void scn_device(const char *file, const char *run_name, sim_device *d) {
    char rel[512];
    snprintf(rel, sizeof rel, "scenarios/%s", file);
    sim_config cfg;
    scn_scenario *s = scn_open_run(rel, run_name, &cfg);
    *d = cfg.device;
    scn_free(s);
}

/* The run `run_name` of scenarios/FILE. */
static inline void scn_simulate(const char *file, const char *run_name, trace *t) {
    char rel[512];
    snprintf(rel, sizeof rel, "scenarios/%s", file);
    scn_simulate_at(rel, run_name, t);
}

#endif
