/* headers.h -- the header fields every answer of `serve` carries
 * (docs/api.md, "Every answer"), declared once: libmicrohttpd's responses
 * take them from hdr_common (http.c), and the answers written straight to
 * a socket -- a body past the cap (http.c answer_now) and the watchdog's
 * 408 (conn_guard.c) -- as raw lines from hdr_raw. */
#ifndef SERVER_HTTP_HEADERS_H
#define SERVER_HTTP_HEADERS_H

#include <stddef.h>

/* The dashboard's Content-Security-Policy: its own scripts and styles
 * only (inline styles for Chart.js), no frames, no plugins. */
#define HDR_CSP                                                                          \
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "          \
    "img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; "                \
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

#define HDR_NCOMMON 5
extern const char *const hdr_common[HDR_NCOMMON][2];

/* "Date: ...\r\n" (now, IMF-fixdate) and every hdr_common field as
 * "Name: value\r\n" into buf; the length written, or 0 when n is too small
 * (buf then holds "" ). */
size_t hdr_raw(char *buf, size_t n);

/* A body cap for a message: "512 MiB" when whole MiB, else "100000
 * bytes" (a cap under 1 MiB was "0 MiB"); the text lives as long as the
 * full expression the call is in. */
typedef struct hdr_size {
    char s[48];
} hdr_size;
hdr_size hdr_size_buf(size_t bytes);

#endif
