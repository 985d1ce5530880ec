/* fuzz_budget.c -- libFuzzer harness for the work budget's readers
 * (server/http/budget.c): budget_prescan counts a POST /api/experiments
 * body's top-level "streams", "ops", "variants" and "tasks" from its bytes
 * before anything parses it (issue 31), and budget_parse reads `serve
 * --budget KEY=N,...`. The prescan must stay within the bytes and, on a
 * body that is a JSON object, count exactly the elements jansson finds in
 * those arrays (an over-count refuses a scenario that fits with 422); the
 * option parse sets what it names or fails with one line. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../server/http/budget.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len) {
    /* the body: exactly len bytes, no terminating NUL */
    char *body = malloc(len ? len : 1);
    if (!body) return 0;
    memcpy(body, data, len);
    budget_work w;
    budget_prescan(body, len, &w);
    long long *counts[] = {&w.streams, &w.ops, &w.variants, &w.tasks};
    static const char *const names[] = {"streams", "ops", "variants", "tasks"};
    for (size_t i = 0; i < 4; i++)
        if (*counts[i] < 0 || (size_t)*counts[i] > len) abort();
    if (w.blocks || w.events || w.processes || w.seconds != 0 || w.cohorts) abort();
    json_t *root = json_loadb(body, len, JSON_REJECT_DUPLICATES, NULL);
    if (json_is_object(root))
        for (size_t i = 0; i < 4; i++) {
            json_t *a = json_object_get(root, names[i]);
            size_t want = json_is_array(a) ? json_array_size(a) : 0;
            if ((size_t)*counts[i] != want) abort();
        }
    json_decref(root);
    free(body);

    /* the option's text: up to the first NUL */
    char *spec = malloc(len + 1);
    if (!spec) return 0;
    memcpy(spec, data, len);
    spec[len] = '\0';
    budget b;
    budget_default(&b);
    char err[512] = "";
    if (budget_parse(spec, &b, err, sizeof err) != 0) {
        /* it quotes the option, newlines and all: the CLI escapes them (die) */
        if (strncmp(err, "--budget", 8) != 0) abort();
    } else if (b.blocks < 0 || b.ops < 0 || b.queue < 1 || b.queue > 64 || b.workers < 1 ||
               b.workers > 64 || b.sweep_threads < 1 || b.sweep_threads > 256) {
        abort();
    }
    free(spec);
    return 0;
}
