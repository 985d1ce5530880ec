/* headers.c -- the fields every answer carries, and their raw form for the
 * answers written without libmicrohttpd (headers.h). */
#include "headers.h"

#include <stdio.h>
#include <time.h>

const char *const hdr_common[HDR_NCOMMON][2] = {
    {"X-Content-Type-Options", "nosniff"},
    {"Content-Security-Policy", HDR_CSP},
    {"X-Frame-Options", "DENY"},
    {"Referrer-Policy", "same-origin"},
    {"Cross-Origin-Resource-Policy", "same-origin"},
};

size_t hdr_raw(char *buf, size_t n) {
    char date[64];
    time_t now = time(NULL);
    struct tm tm;
    strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S GMT", gmtime_r(&now, &tm));
    int w = snprintf(buf, n, "Date: %s\r\n", date);
    for (size_t i = 0; i < HDR_NCOMMON && w > 0 && (size_t)w < n; i++)
        w += snprintf(buf + w, n - (size_t)w, "%s: %s\r\n", hdr_common[i][0], hdr_common[i][1]);
    if (w <= 0 || (size_t)w >= n) {
        if (n) buf[0] = '\0';
        return 0;
    }
    return (size_t)w;
}

hdr_size hdr_size_buf(size_t bytes) {
    hdr_size h;
    if (bytes && bytes % (1u << 20) == 0) snprintf(h.s, sizeof h.s, "%zu MiB", bytes >> 20);
    else snprintf(h.s, sizeof h.s, "%zu bytes", bytes);
    return h;
}
