/* qnames.c -- queue names. See qnames.h. */
#include "qnames.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Intern the concatenation of the parts (a stack buffer for the usual short
 * names, the heap for the rare long process or stream name). */
static trace_str intern_join(trace *t, const char *const *parts, int n) {
    size_t len[4], total = 1;
    for (int i = 0; i < n; i++) total += len[i] = strlen(parts[i]);
    char buf[256];
    char *s = total <= sizeof buf ? buf : malloc(total);
    if (!s) {
        t->oom = true;
        return 0;
    }
    char *w = s;
    for (int i = 0; i < n; i++) {
        memcpy(w, parts[i], len[i]);
        w += len[i];
    }
    *w = '\0';
    trace_str id = trace_intern(t, s);
    if (s != buf) free(s);
    return id;
}

trace_str qname_stream(trace *t, const char *process, const char *stream) {
    const char *parts[] = { "stream:", process, "/", stream };
    return intern_join(t, parts, 4);
}

trace_str qname_ee(trace *t, const char *process, int32_t priority, bool tx2_levels) {
    char level[16];
    if (tx2_levels) snprintf(level, sizeof level, "%s", priority < 0 ? "high" : "low");
    else snprintf(level, sizeof level, "%d", (int)priority);
    const char *parts[] = { "ee:", process, ":", level };
    return intern_join(t, parts, 4);
}

trace_str qname_ce(trace *t, int32_t engine, int32_t nengines) {
    char name[16];
    if (nengines == 1) snprintf(name, sizeof name, "ce");
    else snprintf(name, sizeof name, "ce:%d", (int)engine);
    return trace_intern(t, name);
}
