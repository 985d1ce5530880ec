/* fuzz_globaltimer_csv.c -- libFuzzer harness: any bytes through the
 * globaltimer CSV importer. It must return 0 or -1 with a one-line message,
 * never crash, leak or read out of bounds. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../importers/formats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    imp_file f = {"fuzz.csv", data, size};
    trace t;
    trace_init(&t);
    char err[512] = "";
    int rc = imp_globaltimer_csv(NULL, &f, 1, &t, err, sizeof err);
    if (rc != 0 && (rc != -1 || err[0] == '\0' || strchr(err, '\n'))) abort();
    trace_free(&t);
    return 0;
}
