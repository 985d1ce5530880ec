/* sweep_api.c -- sweeps started from the page. See sweep_api.h. */
#include "sweep_api.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../db/sweep.h"
#include "budget.h"
#include "jobs.h"
#include "../../importers/jsonr.h"
#include "store.h"
#include "sweep.h"
#include "writes.h"

static char *sweeps_dir;

void sweep_api_set_dir(const char *dir) {
    free(sweeps_dir);
    sweeps_dir = dir ? strdup(dir) : NULL;
}

const char *sweep_api_dir(void) { return sweeps_dir; }

/* A shipped spec's file name: letters, digits, '.', '-', '_', ending in
 * ".json", not starting with '.'; nothing else is read from the folder. */
static bool plain_name(const char *s) {
    size_t n = s ? strlen(s) : 0;
    if (n < 6 || n > 200 || s[0] == '.' || strcmp(s + n - 5, ".json") != 0) return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
              (s[i] >= '0' && s[i] <= '9') || s[i] == '.' || s[i] == '-' || s[i] == '_'))
            return false;
    return true;
}

/* Remove every "DIR/" from a message: answers never show server paths. */
static void strip_dir(char *msg, const char *dir) {
    if (!dir) return;
    char pre[PATH_MAX + 2];
    int n = snprintf(pre, sizeof pre, "%s/", dir);
    if (n <= 0 || (size_t)n >= sizeof pre) return;
    char *p;
    while ((p = strstr(msg, pre))) memmove(p, p + n, strlen(p + n) + 1);
}

/* Parse spec text whose file names are relative to the sweeps folder;
 * messages name `label` as the CLI names the spec's path. A body (shipped
 * = false) may name only plain files of that folder. 0, or -1 with err. */
static int parse_spec(const char *label, const char *text, size_t len, bool shipped,
                      sweep_spec **out, char *err, size_t errlen) {
    *out = NULL;
    if (!shipped) {
        json_t *root = json_loadb(text, len, 0, NULL);
        static const char *const refs[] = {"template", "kernels"};
        for (size_t i = 0; json_is_object(root) && i < 2; i++) {
            json_t *v = json_object_get(root, refs[i]);
            if (json_is_string(v) && (!plain_name(json_string_value(v)) || !sweeps_dir)) {
                snprintf(err, errlen,
                         "%s: %s: \"%.200s\" is not a file of the shipped sweeps folder (a "
                         "spec sent to the server names those, as \"isca17-kernels.json\", or "
                         "gives the value inline)",
                         label, refs[i], json_string_value(v));
                json_decref(root);
                return -1;
            }
        }
        json_decref(root);
    }
    char file[PATH_MAX];
    if (sweeps_dir) snprintf(file, sizeof file, "%s/%s", sweeps_dir, label);
    else snprintf(file, sizeof file, "%s", label);
    int rc = sweep_spec_parse(text, len, file, out, err, errlen);
    if (rc) strip_dir(err, sweeps_dir);
    return rc;
}

/* A shipped spec's text, malloc'ed; NULL with 404 set on res. */
static char *read_shipped(const char *name, size_t *len, http_response *res) {
    if (!sweeps_dir || !plain_name(name)) {
        http_set_error(res, 404, "no shipped sweep named \"%.200s\" (GET /api/sweeps/specs lists them)", name);
        return NULL;
    }
    char path[PATH_MAX], err[512];
    snprintf(path, sizeof path, "%s/%s", sweeps_dir, name);
    char *text = jr_read_file(path, 16u << 20, "sweep spec", len, err, sizeof err);
    if (!text)
        http_set_error(res, 404, "no shipped sweep named \"%.200s\" (GET /api/sweeps/specs lists them)", name);
    return text;
}

/* NULL when the spec fits the budget; else {"error", "work", "budget"}. */
static json_t *over_budget(const budget *b, const sweep_spec *s, const char *label) {
    unsigned long long w = (unsigned long long)sweep_work(s);
    bool qos = sweep_is_qos(s);
    long long lim = qos ? b->sweep_cycles : b->sweep_analyses;
    if ((long long)w <= lim) return NULL;
    char msg[600];
    if (qos)
        snprintf(msg, sizeof msg, "%s: %llu simulated cycles (pairs x goals x schemes x the template's "
                 "window) are over the budget's sweep_cycles %lld for one sweep job; run it with "
                 "`schedlab sweep` (shards: --shard i/n) or start the server with --budget "
                 "sweep_cycles=N", label, w, lim);
    else
        snprintf(msg, sizeof msg, "%s: %llu analyses (points x tasksets x approaches) are over the "
                 "budget's sweep_analyses %lld for one sweep job; run it with `schedlab sweep` "
                 "(shards: --shard i/n) or start the server with --budget sweep_analyses=N",
                 label, w, lim);
    return json_pack("{s:s, s:{s:I}, s:o}", "error", msg, "work", qos ? "sweep_cycles" : "sweep_analyses",
                     (json_int_t)w, "budget", budget_json(b));
}

/* ---- GET /api/sweeps/specs ------------------------------------------------ */

/* The listing of the folder's files `names` (sorted). */
static json_t *specs_list(const budget *b, char **names, size_t n) {
    json_t *list = json_array();
    for (size_t i = 0; list && i < n; i++) {
        size_t len;
        char path[PATH_MAX], err[1024];
        snprintf(path, sizeof path, "%s/%s", sweeps_dir, names[i]);
        char *text = jr_read_file(path, 16u << 20, "sweep spec", &len, err, sizeof err);
        json_t *root = text ? json_loadb(text, len, 0, NULL) : NULL;
        const char *schema = json_string_value(json_object_get(root, "schema"));
        sweep_spec *s = NULL;
        /* templates and kernel sets live beside the specs: only specs listed */
        if (schema && !strcmp(schema, "schedlab-sweep/1") &&
            parse_spec(names[i], text, len, true, &s, err, sizeof err) == 0) {
            json_t *over = over_budget(b, s, names[i]);
            json_array_append_new(
                list, json_pack("{s:s, s:s, s:O?, s:s, s:I, s:I, s:b}", "file", names[i], "name",
                                sweep_spec_name(s), "description",
                                json_object_get(root, "description"), "kind",
                                sweep_is_qos(s) ? "qos" : "schedulability", "units",
                                (json_int_t)sweep_units(s), "work", (json_int_t)sweep_work(s),
                                "fits", over == NULL));
            json_decref(over);
        } else if (schema && !strcmp(schema, "schedlab-sweep/1")) {
            /* a spec that does not read (a typo in a spec dropped into the
             * folder, a kernel library missing beside the scenarios) is
             * listed with the reason, not left out without a word */
            const char *nm = json_string_value(json_object_get(root, "name"));
            json_array_append_new(
                list, json_pack("{s:s, s:s, s:O?, s:s, s:b}", "file", names[i], "name",
                                nm ? nm : names[i], "description",
                                json_object_get(root, "description"), "error", err, "fits", 0));
        }
        sweep_spec_free(s);
        json_decref(root);
        free(text);
    }
    if (!list) return NULL;
    return json_pack("{s:o, s:{s:I, s:I, s:I}}", "specs", list, "limits", "sweep_analyses",
                     (json_int_t)b->sweep_analyses, "sweep_cycles", (json_int_t)b->sweep_cycles,
                     "sweep_threads", (json_int_t)b->sweep_threads);
}

/* The listing is kept, with what it was made of: the folder and its files
 * (name, size, modification time, inode: a spec, template or kernel set
 * edited, added or removed makes it again; the shipped specs name only
 * files of the folder) and the budget's limits. Checking a QoS
 * spec builds and reads its template with each scheme (qos_sweep.c), a
 * second of CPU for the shipped folder, and the sweeps page asks for the
 * list each time it is drawn. One request makes it at a time; the others
 * wait for it rather than make it too. (The kernel library, which the
 * specs' programs name, is loaded once per process: kernlib.h.) */
static pthread_mutex_t specs_lock = PTHREAD_MUTEX_INITIALIZER;
static char *specs_made_of;
static json_t *specs_kept;

/* What the listing of `names` under budget b is made of, as text; NULL on OOM. */
static char *specs_key(const budget *b, char **names, size_t n) {
    char *key = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&key, &len);
    if (!f) return NULL;
    fprintf(f, "%s\n%lld %lld %lld\n", sweeps_dir ? sweeps_dir : "", b->sweep_analyses,
            b->sweep_cycles, b->sweep_threads);
    for (size_t i = 0; i < n; i++) {
        char path[PATH_MAX];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", sweeps_dir, names[i]);
        if (stat(path, &st) != 0) memset(&st, 0, sizeof st);
        fprintf(f, "%s %lld %lld.%09ld %llu\n", names[i], (long long)st.st_size,
                (long long)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec,
                (unsigned long long)st.st_ino);
    }
    if (fclose(f) != 0) {
        free(key);
        return NULL;
    }
    return key;
}

void sweep_api_specs(void *app, const http_request *req, http_response *res) {
    (void)req;
    const budget *b = api_budget(app);
    char **names;
    size_t all, n = 0;
    jr_json_files(sweeps_dir, &names, &all);   /* none: an empty list */
    for (size_t i = 0; i < all; i++) {   /* the plain names only, in order */
        if (plain_name(names[i])) names[n++] = names[i];
        else free(names[i]);
    }
    char *key = specs_key(b, names, n);
    json_t *answer = NULL;
    pthread_mutex_lock(&specs_lock);
    if (key && specs_made_of && strcmp(key, specs_made_of) == 0) {
        answer = json_deep_copy(specs_kept);
    } else if ((answer = specs_list(b, names, n)) != NULL && key) {
        json_decref(specs_kept);
        free(specs_made_of);
        specs_kept = json_deep_copy(answer);
        specs_made_of = specs_kept ? key : NULL;
        if (specs_made_of) key = NULL;
    }
    pthread_mutex_unlock(&specs_lock);
    free(key);
    jr_free_names(names, n);
    if (!answer) {
        http_set_error(res, 500, "out of memory listing the sweep specs");
        return;
    }
    res->cache_control = "public, max-age=60";
    http_set_json(res, 200, answer);
}

void sweep_api_spec(void *app, const http_request *req, http_response *res) {
    (void)app;
    size_t len;
    char *text = read_shipped(req->params[0], &len, res);
    if (!text) return;
    json_error_t je;
    json_t *j = json_loadb(text, len, 0, &je);
    free(text);
    if (!j) {
        http_set_error(res, 500, "%s: %s", req->params[0], je.text);
        return;
    }
    /* the templates and kernel sets beside the specs are no specs (the
     * list leaves them out; docs/api.md: 404 for a name that is not one) */
    const char *schema = json_string_value(json_object_get(j, "schema"));
    if (!schema || strcmp(schema, "schedlab-sweep/1") != 0) {
        json_decref(j);
        http_set_error(res, 404,
                       "no shipped sweep named \"%.200s\": a template or kernel set the specs "
                       "name, not a spec (GET /api/sweeps/specs lists them)",
                       req->params[0]);
        return;
    }
    http_set_json(res, 200, j);
}

/* ---- POST /api/sweeps ----------------------------------------------------- */

typedef struct sw_job {
    api_ctx *a;
    sweep_spec *s;
    int threads;
} sw_job;

static void sw_job_free(void *p) {
    sw_job *j = p;
    sweep_spec_free(j->s);
    free(j);
}

static db *job_db(api_ctx *a, char *err, size_t errlen) {
    http_response r = {0};
    db *d = api_db_acquire(a, &r);
    if (!d) {
        json_t *j = r.body ? json_loads(r.body, 0, NULL) : NULL;
        snprintf(err, errlen, "%s",
                 j ? json_string_value(json_object_get(j, "error")) : "cannot open the database");
        json_decref(j);
    }
    free(r.body);
    return d;
}

typedef struct sw_store {
    const json_t *res;
    char slug[DB_SLUG_SIZE];
} sw_store;

static int sw_store_fn(db *d, void *arg, char *err, size_t errlen) {
    sw_store *s = arg;
    return sweep_store_result(d, s->res, NULL, s->slug, err, errlen);
}

static void sw_run(void *arg, job_ctl *ctl, int *status, json_t **result, char *err,
                   size_t errlen) {
    sw_job *j = arg;
    sweep_ctl sc = {.done = &ctl->done, .cancel = &ctl->cancel, .phase = &ctl->phase};
    atomic_store(&ctl->phase, sweep_is_qos(j->s) ? "points" : "tasksets");
    json_t *res = NULL;
    sweep_stats st;
    int rc = sweep_run_ctl(j->s, 0, 1, j->threads, &sc, &res, &st, err, errlen);
    if (atomic_load(&ctl->cancel)) {
        json_decref(res);
        *status = 409;
        snprintf(err, errlen, "cancelled; nothing was stored");
        return;
    }
    if (rc) {
        *status = 400;   /* a QoS point whose scenario does not simulate: the spec's */
        return;
    }
    atomic_store(&ctl->phase, "storing");
    db *d = job_db(j->a, err, errlen);
    if (!d) {
        json_decref(res);
        *status = 500;
        return;
    }
    /* through the store's write lock, waited for as long as it takes: a
     * sweep finished behind a long import is stored once the import is
     * done (SQLite's busy wait failed it "database is locked" after 30 s,
     * its result lost); a stopping server gives up the wait, nothing stored */
    sw_store st_arg = {.res = res};
    store_ctl wc = {.cancel = &ctl->cancel, .lock_ms = -1};
    rc = store_write(d, &wc, sw_store_fn, &st_arg, err, errlen);
    api_db_release(j->a, d);
    json_decref(res);
    if (rc) {
        *status = rc == STORE_ABORTED ? 503 : 500;
        return;
    }
    const char *slug = st_arg.slug;
    *status = 201;
    *result = json_pack("{s:s, s:f, s:i}", "slug", slug, "wall_s", st.wall_s, "threads",
                        st.threads);
}

void sweep_api_post(void *app, const http_request *req, http_response *res) {
    api_ctx *a = app;
    const budget *b = api_budget(a);
    if (!api_db_ok(a, res)) return;
    const char *shipped = http_query(req, "spec");
    const char *th = http_query(req, "threads");
    long long threads = b->sweep_threads;
    if (th) {
        int64_t t;
        if (!http_parse_int(th, &t) || t < 1) {
            http_set_error(res, 400, "threads: expected a whole number from 1, got \"%.40s\"", th);
            return;
        }
        if (t > b->sweep_threads) {
            char msg[200];
            snprintf(msg, sizeof msg, "threads: %lld is over the budget's sweep_threads %lld "
                     "(serve --budget sweep_threads=N)", (long long)t, b->sweep_threads);
            http_set_json(res, 422, json_pack("{s:s, s:{s:I}, s:o}", "error", msg, "work",
                                              "sweep_threads", (json_int_t)t, "budget",
                                              budget_json(b)));
            return;
        }
        threads = t;
    }
    char err[1024];
    sweep_spec *s = NULL;
    const char *label;
    if (shipped) {
        if (req->body && req->body_len) {
            http_set_error(res, 400, "sweep: give a spec in the body or ?spec=FILE, not both");
            return;
        }
        size_t len;
        char *text = read_shipped(shipped, &len, res);
        if (!text) return;
        label = shipped;
        int rc = parse_spec(shipped, text, len, true, &s, err, sizeof err);
        free(text);
        if (rc) {
            http_set_error(res, 400, "%s", err);
            return;
        }
    } else {
        if (!req->body || !req->body_len) {
            http_set_error(res, 400, "sweep: the request body is empty; send a schedlab-sweep/1 "
                           "spec or name a shipped one with ?spec=FILE");
            return;
        }
        label = "sweep";
        if (parse_spec(label, req->body, req->body_len, false, &s, err, sizeof err)) {
            http_set_error(res, jr_over_budget() ? 413 : 400, "%s", err);
            return;
        }
    }
    json_t *over = over_budget(b, s, label);
    if (over) {
        sweep_spec_free(s);
        http_set_json(res, 422, over);
        return;
    }
    sw_job *j = calloc(1, sizeof *j);
    if (!j) {
        sweep_spec_free(s);
        http_set_error(res, 500, "out of memory");
        return;
    }
    *j = (sw_job){.a = a, .s = s, .threads = (int)threads};
    char id[JOBS_ID_SIZE];
    int rc = jobs_submit(api_jobs(a), "sweep", sw_run, j, sw_job_free,
                         (long long)sweep_units(s), id);
    if (rc) sw_job_free(j);
    writes_queued(res, rc, id);
}

/* ---- DELETE /api/jobs/{id} ------------------------------------------------ */

void sweep_api_cancel_job(void *app, const http_request *req, http_response *res) {
    int rc = jobs_cancel(api_jobs(app), req->params[0]);
    if (rc < 0) {
        http_set_error(res, 404, "no job named \"%.64s\" (jobs are kept while the server runs)",
                       req->params[0]);
        return;
    }
    json_t *o = jobs_status(api_jobs(app), req->params[0]);
    if (!o) o = json_pack("{s:s}", "job", req->params[0]);
    json_object_set_new(o, "cancelled", json_boolean(rc == 0));
    http_set_json(res, rc == 0 ? 202 : 200, o);
}
