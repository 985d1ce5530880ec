/* fuzz_pytorch_json.c -- libFuzzer harness for the PyTorch profiler
 * importer (issue 29) and its pull JSON reader: any bytes through
 * imp_pytorch_json as one file and, split at the first NUL, as two rank
 * files of one job; and through the reader fed one byte per chunk, which
 * must give the same tokens as fed whole (every chunk boundary a .gz
 * member's inflate can produce). It must return 0 or -1 with a one-line
 * message, never crash, leak or read out of bounds. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../importers/pjson.h"
#include "fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* imp_pytorch_json takes no import context (imp_pytorch_format.read does) */
static int pt_read(imp_ctx *cx, const imp_file *files, size_t n, trace *t, char *err,
                   size_t errlen) {
    (void)cx;
    return imp_pytorch_json(files, n, t, err, errlen);
}

typedef struct drip { const uint8_t *d; size_t at, n; } drip;
static int drip_refill(void *user, const unsigned char **buf, size_t *len) {
    drip *p = user;
    *len = p->at < p->n ? 1 : 0;
    *buf = p->d + p->at;
    p->at += *len;
    return 0;
}

static void same_tokens(const uint8_t *data, size_t size) {
    pj_reader a, b;
    drip d = { data, 0, size };
    pj_init(&a, data, size, NULL, NULL);
    pj_init(&b, NULL, 0, drip_refill, &d);
    for (int i = 0; i < 100000; i++) {
        pj_tok x = pj_next(&a), y = pj_next(&b);
        if (x != y) abort();
        if (x == PJ_KEY || x == PJ_STRING || x == PJ_NUMBER) {
            if (a.len != b.len || memcmp(a.str, b.str, a.len) != 0) abort();
            if (x == PJ_NUMBER) {
                int64_t v;
                (void)imp_pytorch_us_to_ns(a.str, &v);
            }
        }
        if (x == PJ_ERROR) {
            if (strcmp(a.err, b.err) != 0) abort();
            break;
        }
        if (x == PJ_END) break;
    }
    pj_free(&a);
    pj_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_import_one_and_two(pt_read, data, size);
    same_tokens(data, size);
    return 0;
}
