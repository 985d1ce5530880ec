/* fuzz_idset.c -- libFuzzer harness for the id-list parser (server/formats/idset.c):
 * /occupancy's `kernels` and /streams' `names` come straight from the URL.
 * The first byte picks the number of ids (0..255), the rest is the list.
 * Every input must either fail with a one-line message or set exactly the
 * bits a brute-force reading of the same list sets, none past n. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../server/formats/idset.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

/* the set the list names, read the slow way: split at commas, a-b or a */
static int brute(const char *s, int64_t n, uint8_t *bits) {
    const char *p = s;
    while (*p) {
        char *end;
        long a = strtol(p, &end, 10), b = a;
        if (*end == '-') b = strtol(end + 1, &end, 10);
        if (a < 0 || b < a || b >= n) return -1;
        for (long k = a; k <= b; k++) bits[k >> 3] |= (uint8_t)(1u << (k & 7));
        p = *end == ',' ? end + 1 : end;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len) {
    if (len < 1 || len > 4096) return 0;
    int64_t n = data[0];
    char *s = malloc(len);
    if (!s) return 0;
    memcpy(s, data + 1, len - 1);
    s[len - 1] = '\0';
    if (strlen(s) != len - 1) { free(s); return 0; }   /* a query value has no NUL */
    uint8_t bits[40] = {0}, want[40] = {0};
    char err[256];
    static const idset_words w = {"kernels", "a kernel id", "ids", "a kernel"};
    if (!idset_parse(&w, s, n, bits, err, sizeof err)) {
        if (err[0] == '\0' || strchr(err, '\n') || strncmp(err, "kernels: ", 9) != 0) abort();
    } else {
        /* accepted: digits, '-' and ',' only, and the same set as brute force */
        if (strspn(s, "0123456789-,") != strlen(s) || brute(s, n, want) != 0) abort();
        if (memcmp(bits, want, sizeof bits) != 0) abort();
        for (int64_t k = n; k < 320; k++)
            if (bits[k >> 3] >> (k & 7) & 1) abort();
    }
    free(s);
    return 0;
}
