/* fuzz_examiner_json.c -- libFuzzer harness: any bytes through the examiner
 * JSON importer, as one file and, split at the first NUL, as two files of
 * one scenario. It must return 0 or -1 with a one-line message, never
 * crash, leak or read out of bounds. */
#include <stdint.h>

#include "fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_import_one_and_two(imp_examiner_json, data, size);
    return 0;
}
