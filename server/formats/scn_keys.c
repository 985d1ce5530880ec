/* scn_keys.c -- an object's keys as a table. See scn_keys.h. */
#include "scn_keys.h"

int scn_keys_known(jr_ctx *c, json_t *o, const char *path, const scn_key *t, size_t n) {
    const char *names[SCN_MAX_KEYS + 1];
    if (n > SCN_MAX_KEYS)   /* each table asserts it; a table past it is this build's bug */
        return jr_fail(c, path, "%zu keys: raise SCN_MAX_KEYS", n);
    for (size_t i = 0; i < n; i++)
        names[i] = t[i].key;
    names[n] = NULL;
    return jr_need_object(c, o, path) || jr_check_keys(c, o, path, names) ? -1 : 0;
}

int scn_keys_need(jr_ctx *c, json_t *o, const char *path, const scn_key *t, size_t n,
                  const char *kind, const char *name) {
    for (size_t i = 0; i < n; i++) {
        if (!t[i].missing || json_object_get(o, t[i].key))
            continue;
        if (kind)
            return jr_fail(c, path, "%s \"%s\" is missing \"%s\"%s", kind, name, t[i].key,
                           t[i].missing);
        return jr_fail(c, path, "missing \"%s\"%s", t[i].key, t[i].missing);
    }
    return 0;
}

int scn_keys_check(jr_ctx *c, json_t *o, const char *path, const scn_key *t, size_t n) {
    return scn_keys_known(c, o, path, t, n) || scn_keys_need(c, o, path, t, n, NULL, NULL) ? -1 : 0;
}

static int keys_read(void *ctx, json_t *o, const char *path, const scn_key *t, size_t n,
                     int step, void *obj, bool null_absent) {
    char p[JR_PATH_MAX];
    for (size_t i = 0; i < n; i++) {
        if (t[i].step != step || !t[i].read)
            continue;
        json_t *v = json_object_get(o, t[i].key);
        if (null_absent && json_is_null(v))
            v = NULL;
        if (!v && !t[i].always)
            continue;
        if (t[i].read(ctx, v, jr_join(p, path, t[i].key), obj))
            return -1;
    }
    return 0;
}

int scn_keys_read(void *ctx, json_t *o, const char *path, const scn_key *t, size_t n, int step,
                  void *obj) {
    return keys_read(ctx, o, path, t, n, step, obj, false);
}

int scn_keys_read_opt(void *ctx, json_t *o, const char *path, const scn_key *t, size_t n,
                      int step, void *obj) {
    return keys_read(ctx, o, path, t, n, step, obj, true);
}
