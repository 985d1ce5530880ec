/* fuzz_trace_json.c -- libFuzzer harness for the schedlab-trace/1 reader:
 * `schedlab import` and POST /api/imports accept an exported trace back.
 * Every input either parses into a trace that writes out again -- text
 * that reads back and writes out byte for byte the same -- or fails with
 * one line. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../server/formats/trace_json.h"
#include "../importers/schedlab_trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len) {
    char err[512] = "";
    trace t;
    trace_init(&t);
    if (imp_trace_json_parse((const char *)data, len, "fuzz.json", &t, err, sizeof err) != 0) {
        if (err[0] == '\0') abort();
        /* one printable line: every control character the input had is escaped (issue 16) */
        for (const unsigned char *p = (const unsigned char *)err; *p; p++)
            if (*p < 0x20 || *p == 0x7f) abort();
    } else {
        /* what it reads writes out, and that text reads back to the same
         * text (export, import, export: the same bytes) */
        tj_buf b = {0}, b2 = {0};
        if (tj_write_trace(&t, &b) == 0 && !b.oom) {
            trace u;
            trace_init(&u);
            char err2[512] = "";
            if (imp_trace_json_parse(b.s, b.len, "again.json", &u, err2, sizeof err2) != 0) abort();
            if (tj_write_trace(&u, &b2) == 0 && !b2.oom &&
                (b2.len != b.len || memcmp(b.s, b2.s, b.len) != 0))
                abort();
            trace_free(&u);
        }
        tj_buf_free(&b);
        tj_buf_free(&b2);
    }
    trace_free(&t);
    return 0;
}
