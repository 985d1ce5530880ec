/* fuzz_examiner_json.c -- libFuzzer harness: any bytes through the examiner
 * JSON importer, as one file and, split at the first NUL, as two files of
 * one scenario. It must return 0 or -1 with a one-line message, never
 * crash, leak or read out of bounds. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../importers/formats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const imp_file *files, size_t n) {
    trace t;
    trace_init(&t);
    char err[512] = "";
    int rc = imp_examiner_json(NULL, files, n, &t, err, sizeof err);
    if (rc != 0 && (rc != -1 || err[0] == '\0' || strchr(err, '\n'))) abort();
    trace_free(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    imp_file one = {"fuzz.json", data, size};
    check(&one, 1);
    const uint8_t *nul = memchr(data, 0, size);
    if (nul) {
        size_t a = (size_t)(nul - data);
        imp_file two[2] = {{"a.json", data, a}, {"b.json", nul + 1, size - a - 1}};
        check(two, 2);
    }
    return 0;
}
