/* fuzz_kernel.c -- libFuzzer harness for the kernel library's file check
 * (server/formats/kernlib.c kl_check): every input is accepted or refused
 * with a one-line message naming the file. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../server/formats/kernlib.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len) {
    char err[512] = "";
    if (kl_check((const char *)data, len, "k.json", len % 2 ? "vectorAdd" : NULL, err,
                 sizeof err) != 0) {
        if (err[0] == '\0' || strchr(err, '\n') || strncmp(err, "k.json", 6) != 0) abort();
    }
    return 0;
}
