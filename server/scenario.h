/* scenario.h -- schedlab-scenario/1 JSON (DESIGN §4) into simulator configs.
 *
 * A parsed scenario owns every string and array its configs point to; a
 * sim_config from scn_config() borrows from it and is valid until scn_free.
 *
 * Runs: index 0 is the scenario as written (named "default" unless the
 * scenario's policy names it otherwise, see scn_run_name), 1..n are its
 * `variants` in order. */
#ifndef SERVER_SCENARIO_H
#define SERVER_SCENARIO_H

#include <stddef.h>

#include "../simcore/sim.h"

typedef struct scn_scenario scn_scenario;

/* Parse scenario JSON text. `file` names the input in messages. On error
 * returns -1 and writes one line: "FILE: ops[3].threads: 2048 is more than
 * the device's max_threads_per_block (1024)" or "FILE:12:5: JSON: ...". */
int scn_parse(const char *text, size_t len, const char *file, scn_scenario **out,
              char *err, size_t errlen);
int scn_parse_file(const char *path, scn_scenario **out, char *err, size_t errlen);
void scn_free(scn_scenario *s);

const char *scn_name(const scn_scenario *s);
const char *scn_description(const scn_scenario *s);
size_t scn_run_count(const scn_scenario *s);               /* 1 + variants */
const char *scn_run_name(const scn_scenario *s, size_t run);
int scn_find_run(const scn_scenario *s, const char *name);  /* -1 if none */

/* The simulator configuration of one run. */
int scn_config(const scn_scenario *s, size_t run, sim_config *out, char *err, size_t errlen);

#endif
