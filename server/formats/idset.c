/* idset.c -- id lists as bit sets (see idset.h). */
#include "idset.h"

#include <inttypes.h>
#include <stdio.h>

#include "../../simcore/fnv.h"

/* a decimal id at *p (advanced), within 0..INT32_MAX */
static bool read_id(const char **p, int64_t *out) {
    const char *s = *p;
    if (*s < '0' || *s > '9') return false;
    int64_t v = 0;
    while (*s >= '0' && *s <= '9') {
        v = v * 10 + (*s++ - '0');
        if (v > INT32_MAX) return false;
    }
    *p = s;
    *out = v;
    return true;
}

/* The first 40 bytes of s for a message, control bytes shown as '?' so the
 * message stays one line whatever the URL held. */
static const char *echo(const char *s, char out[41]) {
    size_t i = 0;
    for (; i < 40 && s[i]; i++) out[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
    out[i] = '\0';
    return out;
}

bool idset_parse(const idset_words *w, const char *s, int64_t n, uint8_t *bits, char *err,
                 size_t errlen) {
    const char *p = s;
    char shown[41];
    while (*p) {
        const char *item = p;
        int64_t a, b;
        if (!read_id(&p, &a)) {
            snprintf(err, errlen, "%s: \"%s\" at character %td: expected %s", w->param,
                     echo(item, shown), item - s + 1, w->item);
            return false;
        }
        b = a;
        if (*p == '-') {
            p++;
            if (!read_id(&p, &b)) {
                snprintf(err, errlen, "%s: \"%s\" at character %td: expected %s after '-'",
                         w->param, echo(item, shown), item - s + 1, w->item);
                return false;
            }
            if (b < a) {
                snprintf(err, errlen, "%s: range %" PRId64 "-%" PRId64 " at character %td runs backwards",
                         w->param, a, b, item - s + 1);
                return false;
            }
        }
        if (*p && *p != ',') {
            snprintf(err, errlen, "%s: \"%s\" at character %td: expected ',' between %s", w->param,
                     echo(p, shown), p - s + 1, w->items);
            return false;
        }
        if (*p) p++;
        if (b >= n) {
            if (n)
                snprintf(err, errlen, "%s: %" PRId64 " is not %s of the run (%s 0..%" PRId64 ")",
                         w->param, b, w->what, w->items, n - 1);
            else
                snprintf(err, errlen, "%s: %" PRId64 " is not %s of the run (it has none)", w->param,
                         b, w->what);
            return false;
        }
        for (int64_t k = a; k <= b; k++) bits[k >> 3] |= (uint8_t)(1u << (k & 7));
    }
    return true;
}

uint64_t idset_hash(const uint8_t *bits, size_t nbytes) {
    uint64_t h = FNV1A_OFFSET;
    for (size_t i = 0; i < nbytes; i++) h = (h ^ bits[i]) * FNV1A_PRIME;
    return h;
}
