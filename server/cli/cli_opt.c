/* cli_opt.c -- one option of the command line (cli_opt.h). */
#include "cli_opt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *cli_opt_split(const char *arg, char *flag, size_t len) {
    const char *eq = strchr(arg, '=');
    if (eq && (size_t)(eq - arg) < len) {
        memcpy(flag, arg, (size_t)(eq - arg));
        flag[eq - arg] = '\0';
        return eq + 1;
    }
    snprintf(flag, len, "%s", arg);
    return NULL;
}

int cli_opt_long(const char *s, long min, long max, long *out) {
    long v = 0;
    const char *p = s;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (p - s == 18) return -1;   /* past any option's range, never an overflow */
        v = v * 10 + (*p - '0');
    }
    if (p == s || *p || v < min || v > max) return -1;
    *out = v;
    return 0;
}

int cli_opt_decimal(const char *s, const char **end, double *out) {
    const char *p = s;
    while (*p >= '0' && *p <= '9') p++;
    if (p == s) return -1;
    if (*p == '.' && p[1] >= '0' && p[1] <= '9')
        for (p++; *p >= '0' && *p <= '9'; p++) {}
    char buf[64];
    if ((size_t)(p - s) >= sizeof buf) return -1;
    memcpy(buf, s, (size_t)(p - s));
    buf[p - s] = '\0';
    *out = strtod(buf, NULL);
    *end = p;
    return 0;
}

int cli_opt_once(cli_opt_seen *s, const void *slot, const char *flag, char *err, size_t n) {
    for (size_t i = 0; i < s->n; i++) {
        if (s->slot[i] != slot) continue;
        if (strcmp(s->flag[i], flag) == 0)
            snprintf(err, n, "option %s given twice (it takes one value)", flag);
        else
            snprintf(err, n, "option %s given twice (as %s, then %s; it takes one value)", flag,
                     s->flag[i], flag);
        return -1;
    }
    if (s->n < sizeof s->slot / sizeof *s->slot) {
        s->slot[s->n] = slot;
        snprintf(s->flag[s->n], sizeof s->flag[s->n], "%s", flag);
        s->n++;
    }
    return 0;
}
