/* fuzz_sweep_merge.c -- libFuzzer harness for `schedlab merge` (sweep_merge,
 * server/app/sweep.c, and qos_merge for kind "qos"): the shard result files
 * come from other machines (a cluster's jobs) and are read as the CLI reads
 * them. The input is split at NUL bytes into up to 8 shards; every set of
 * shards either merges into a result that writes out (sweep_text), or is
 * refused with one line. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../server/app/sweep.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len) {
    json_t *sh[8];
    size_t n = 0;
    const uint8_t *p = data, *end = data + len;
    int bad = 0;
    while (n < 8) {
        const uint8_t *nul = memchr(p, 0, (size_t)(end - p));
        size_t l = nul ? (size_t)(nul - p) : (size_t)(end - p);
        /* as `schedlab merge` reads a file (rta_cli.c) */
        sh[n] = json_loadb((const char *)p, l, JSON_REJECT_DUPLICATES, NULL);
        if (!sh[n]) { bad = 1; break; }
        n++;
        if (!nul) break;
        p = nul + 1;
    }
    if (!bad && n > 0) {
        json_t *m = NULL;
        char err[1024] = "";
        if (sweep_merge(sh, n, &m, err, sizeof err) == 0) {
            if (!m) abort();
            char *text = sweep_text(m);
            free(text);
            json_decref(m);
        } else if (m || err[0] == '\0' || strchr(err, '\n')) {
            abort();
        }
    }
    for (size_t i = 0; i < n; i++) json_decref(sh[i]);
    return 0;
}
