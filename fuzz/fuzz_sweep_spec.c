/* fuzz_sweep_spec.c -- libFuzzer harness for the sweep spec reader
 * (server/app/sweep.c, and qos_sweep.c for kind "qos": its kernel sets,
 * whole-benchmark sequences, templates and schemes): POST /api/sweeps
 * hands it untrusted bodies. Every input must either fail with a one-line
 * message or give a spec with a name and at least one unit of work. The
 * spec's file lies in a folder that does not exist, so a template or a
 * kernel set given by file name fails to read (a message like any other)
 * and the run does not depend on the files around it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../server/app/sweep.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len) {
    char err[1024];
    err[0] = '\0';
    sweep_spec *s = NULL;
    if (sweep_spec_parse((const char *)data, len, "/nonexistent-fuzz/spec.json", &s, err,
                         sizeof err) != 0) {
        if (s || err[0] == '\0' || strchr(err, '\n')) abort();
        return 0;
    }
    const char *name = sweep_spec_name(s);
    if (!name || !*name || sweep_units(s) == 0) abort();
    sweep_spec_free(s);
    return 0;
}
