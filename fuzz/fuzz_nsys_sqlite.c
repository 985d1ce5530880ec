/* fuzz_nsys_sqlite.c -- libFuzzer harness: any bytes through the Nsight
 * Systems SQLite importer (in-memory open, metadata and ENUM tables, schema
 * checks, row readers, sorting). It must return 0 or -1 with a one-line
 * message, never crash, leak or read out of bounds; what it returns must be
 * sorted and re-base without overflow. Also differential against the
 * streamed import (fuzz_sqlite_stream.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../importers/formats.h"
#include "fuzz_sqlite_stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    imp_file f = {"fuzz.sqlite", data, size};
    int kind = imp_sqlite_kind(data, size);
    if (kind != IMP_UNKNOWN && kind != IMP_NVPROF_SQLITE && kind != IMP_NSYS_SQLITE) abort();
    trace t;
    trace_init(&t);
    char err[512] = "";
    int rc = imp_nsys_sqlite(NULL, &f, 1, &t, err, sizeof err);
    if (rc != 0 && (rc != -1 || err[0] == '\0' || strchr(err, '\n'))) abort();
    if (rc == 0) {
        if (t.kernels.n == 0 && t.copies.n == 0) abort();
        for (size_t i = 1; i < t.kernels.n; i++)
            if (t.kernels.v[i - 1].first_block > t.kernels.v[i].first_block) abort();
        for (size_t i = 1; i < t.copies.n; i++)
            if (t.copies.v[i - 1].start > t.copies.v[i].start) abort();
    }
    fss_check(IMP_NSYS_SQLITE, &f, rc, &t);
    if (rc == 0) trace_rebase(&t);
    trace_free(&t);
    return 0;
}
