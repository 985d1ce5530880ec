/* errors.c -- the one way an importer words a failure: "FILE<sep>message" on
 * one printable line. Messages quote bytes from the user's file, so control
 * characters are escaped here rather than trusted to every caller. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "formats.h"

int imp_verror(char *err, size_t errlen, const char *file, const char *sep, const char *fmt,
               va_list ap) {
    if (!err || errlen == 0) return -1;
    char raw[1024];
    int n = snprintf(raw, sizeof raw, "%s%s", file ? file : "input", sep);
    if (n < 0) n = 0;
    if ((size_t)n < sizeof raw) vsnprintf(raw + n, sizeof raw - (size_t)n, fmt, ap);
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)raw; *p && o + 5 < errlen; p++) {
        if (*p >= 0x20 && *p != 0x7f) {
            err[o++] = (char)*p;
        } else if (*p == '\n' || *p == '\r' || *p == '\t') {
            err[o++] = ' ';   /* SQLite and jansson wrap their own messages */
        } else {
            static const char hex[] = "0123456789abcdef";
            err[o++] = '\\';
            err[o++] = 'x';
            err[o++] = hex[*p >> 4];
            err[o++] = hex[*p & 15];
        }
    }
    err[o] = '\0';
    return -1;
}

int imp_error(char *err, size_t errlen, const char *file, const char *sep, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    imp_verror(err, errlen, file, sep, fmt, ap);
    va_end(ap);
    return -1;
}
