/* warnings.c -- what an import left out of the user's files, or guessed,
 * said to the user: one line per thing, kept in the run's meta
 * (importers.h, imp_warn; docs/trace-format.md, "Import warnings") so the
 * CLI, the HTTP answer, the run page and an exported trace all have it. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats.h"

long long imp_warnings_total(const trace *t) {
    const char *v = trace_get_meta(t, IMP_WARNINGS_TOTAL_KEY);
    if (!v) return 0;
    char *end;
    long long n = strtoll(v, &end, 10);
    return *end || n < 0 ? 0 : n;
}

int imp_warn(trace *t, const char *file, const char *fmt, ...) {
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    /* one printable line: quoted bytes from the file are escaped (errors.c) */
    imp_verror(line, sizeof line, file, ": ", fmt, ap);
    va_end(ap);
    long long total = imp_warnings_total(t);
    if (total < IMP_WARNINGS_SHOWN) {
        const char *old = trace_get_meta(t, IMP_WARNINGS_KEY);
        if (!old || !*old) {
            if (trace_set_meta(t, IMP_WARNINGS_KEY, line) < 0) return -1;
        } else {
            size_t ol = strlen(old), ll = strlen(line);
            char *both = malloc(ol + ll + 2);
            if (!both) {
                t->oom = true;
                return -1;
            }
            memcpy(both, old, ol);
            both[ol] = '\n';
            memcpy(both + ol + 1, line, ll + 1);
            int rc = trace_set_meta(t, IMP_WARNINGS_KEY, both);
            free(both);
            if (rc < 0) return -1;
        }
    }
    char num[32];
    snprintf(num, sizeof num, "%lld", total + 1);
    return trace_set_meta(t, IMP_WARNINGS_TOTAL_KEY, num);
}
