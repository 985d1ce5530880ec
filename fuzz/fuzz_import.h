/* fuzz_import.h -- what the multi-file importer harnesses share
 * (fuzz_examiner_json.c, fuzz_pytorch_json.c): the bytes through an
 * importer as one file and, split at the first NUL, as two files of one
 * import. The importer must return 0 or -1 with a one-line message, never
 * crash, leak or read out of bounds. */
#ifndef FUZZ_IMPORT_H
#define FUZZ_IMPORT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../importers/formats.h"

typedef int (*fuzz_import_fn)(imp_ctx *cx, const imp_file *files, size_t nfiles, trace *out,
                              char *err, size_t errlen);

static void fuzz_import_check(fuzz_import_fn read, const imp_file *files, size_t n) {
    trace t;
    trace_init(&t);
    char err[512] = "";
    int rc = read(NULL, files, n, &t, err, sizeof err);
    if (rc != 0 && (rc != -1 || err[0] == '\0' || strchr(err, '\n'))) abort();
    trace_free(&t);
}

/* One file, then, where there is a NUL, the two files either side of it. */
static void fuzz_import_one_and_two(fuzz_import_fn read, const uint8_t *data, size_t size) {
    imp_file one = {"fuzz.json", data, size};
    fuzz_import_check(read, &one, 1);
    const uint8_t *nul = memchr(data, 0, size);
    if (nul) {
        size_t a = (size_t)(nul - data);
        imp_file two[2] = {{"a.json", data, a}, {"b.json", nul + 1, size - a - 1}};
        fuzz_import_check(read, two, 2);
    }
}

#endif
