/* exec_dist.h -- a segment time that may vary (issue 27): a duration (the
 * time of every job), or {"min": d, "max": d} (uniform), or {"mean": d,
 * "sd": d, "max": d} (a normal truncated to [min, max], "min" optional,
 * default 0). The WCET is max. Used by the scenario's tasks (which keep the
 * distribution for the simulator) and by the taskset reader (which only
 * needs the WCET for the analysis). */
#ifndef SERVER_EXEC_DIST_H
#define SERVER_EXEC_DIST_H

#include <jansson.h>
#include <stdint.h>

#include "../../simcore/sim.h"
#include "../../importers/jsonr.h"

/* 0, or -1 with jr_fail's message naming path. d may be NULL. v missing is
 * "missing". */
int exec_dist_parse(jr_ctx *c, json_t *v, const char *path, int64_t *wcet, sim_dist *d);

#endif
