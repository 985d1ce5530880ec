/* fuzz_trace_json.c -- libFuzzer harness for the schedlab-trace/1 reader:
 * `schedlab import` and POST /api/imports accept an exported trace back.
 * Every input either parses into a trace that writes out again, or fails
 * with one line. */
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
        tj_buf b = {0};
        tj_write_trace(&t, &b);
        tj_buf_free(&b);
    }
    trace_free(&t);
    return 0;
}
