/* fuzz_sweep_merge.c -- libFuzzer harness for `schedlab merge` (sweep_merge,
 * server/app/sweep.c, and qos_merge for kind "qos"): the shard result files
 * come from other machines (a cluster's jobs) and are read as the CLI reads
 * them. The input is split at NUL bytes into up to 8 shards; every set of
 * shards either merges into a result that writes out (sweep_text), or is
 * refused with one line. The first file is also what `schedlab sweep
 * --reuse` reads (qos_sweep.h's qos_reuse_plan), matched against a small
 * QoS spec of its own: planned (every group reused or run) or refused with
 * one line. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../server/app/qos_sweep.h"
#include "../server/app/sweep.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

/* two kernels of inline programs on the ISCA'17 device: nothing read from
 * files */
static const char reuse_spec[] =
    "{\"schema\": \"schedlab-sweep/1\", \"kind\": \"qos\", \"name\": \"fuzz\", \"template\": "
    "{\"schema\": \"schedlab-scenario/1\", \"name\": \"t\", \"device\": \"isca17-gpgpusim\", "
    "\"policy\": {\"warp\": \"gto\"}, \"window\": 1000, \"streams\": [{\"name\": \"Q\"}, "
    "{\"name\": \"B\"}], \"ops\": [{\"kernel\": \"$qos\", \"stream\": \"Q\", \"at\": 0, "
    "\"runs\": 2}, {\"kernel\": \"$other\", \"stream\": \"B\", \"at\": 0}]}, "
    "\"kernels\": [{\"name\": \"a\", \"class\": \"compute\", \"blocks\": 2, \"threads\": 64, "
    "\"program\": {\"body\": [{\"op\": \"alu\", \"count\": 4}], \"repeat\": 2}}, "
    "{\"name\": \"b\", \"class\": \"memory\", \"blocks\": 2, \"threads\": 64, "
    "\"program\": {\"body\": [{\"op\": \"mem\", \"count\": 1}], \"repeat\": 2}}], "
    "\"pairs\": \"all\", \"goals\": [0.5, 0.9], \"schemes\": [{\"name\": \"naive\", "
    "\"policy\": {\"warp\": \"quota-naive\"}}]}";

static void reuse_plan(json_t *old) {
    static sweep_spec *s;
    char err[1024] = "";
    if (!s && sweep_spec_parse(reuse_spec, sizeof reuse_spec - 1, "fuzz.json", &s, err, sizeof err))
        abort();   /* the harness's own spec */
    struct qos_reuse *r = NULL;
    err[0] = '\0';
    if (sweep_reuse_plan(s, old, "old.json", &r, err, sizeof err) == 0) {
        if (!r || qos_reuse_to_run(r) + qos_reuse_reused(r) != 4) abort();
        qos_reuse_free(r);
    } else if (r || err[0] == '\0' || strchr(err, '\n')) {
        abort();
    }
}

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
    if (!bad && n > 0) reuse_plan(sh[0]);
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
