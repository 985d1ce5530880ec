/* fuzz_taskset.c -- libFuzzer harness for the taskset reader
 * (server/formats/taskset.c): POST /api/rta hands it untrusted bodies. Every input
 * must either fail with a one-line message or give a taskset that rta_check
 * accepts and that every analysis finishes on, with bounds that are within
 * each task's deadline or RTA_FAILED. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../server/formats/taskset.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len) {
    char err[512];
    tset *t = NULL;
    if (tset_parse((const char *)data, len, "fuzz.json", &t, err, sizeof err) != 0) {
        if (err[0] == '\0' || strchr(err, '\n')) abort();
        return 0;
    }
    const rta_taskset *ts = tset_rta(t);
    if (rta_check(ts, err, sizeof err) != 0) abort();
    int64_t w[RTA_MAX_TASKS];
    for (int a = 0; a < RTA_NAPPROACHES; a++) {
        rta_result r = {.wcrt = w};
        rta_analyse(ts, (rta_approach)a, &r);
        for (size_t i = 0; i < ts->n; i++) {
            if (ts->tasks[i].best_effort ? w[i] != RTA_NOT_ANALYSED
                                         : (w[i] != RTA_FAILED && (w[i] < 0 || w[i] > ts->tasks[i].period)))
                abort();
            if (r.schedulable && !ts->tasks[i].best_effort && w[i] < 0) abort();
        }
    }
    json_t *j = tset_analyse_json(ts);
    if (!j) abort();
    json_decref(j);
    tset_free(t);
    return 0;
}
