/* fuzz_scenario.c -- libFuzzer harness for the scenario parser: POST
 * /api/experiments hands it untrusted bodies. Every input must either parse
 * into configs the simulator accepts or fail with a one-line message. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../server/formats/scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len) {
    char err[512];
    scn_scenario *s = NULL;
    if (scn_parse((const char *)data, len, "fuzz.json", &s, err, sizeof err) != 0) {
        /* a failure always explains itself on one line */
        if (err[0] == '\0' || strchr(err, '\n')) abort();
        return 0;
    }
    for (size_t i = 0; i < scn_run_count(s); i++) {
        sim_config cfg;
        if (scn_config(s, i, &cfg, err, sizeof err) != 0) continue;
        (void)scn_run_name(s, i);
    }
    scn_free(s);
    return 0;
}
