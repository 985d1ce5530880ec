/* store.c -- the store layer: scenarios simulated into experiments,
 * imports, shipped scenarios seeded. See store.h. */
#include "store.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../simcore/sim.h"
#include "scenario.h"
#include "trace_json.h"

/* The block sink of a simulated run: each batch straight into the run's
 * rows, so the server holds at most one batch (SIM_SINK_BATCH blocks) of a
 * run in memory, however many blocks it has. */
typedef struct writer_sink {
    db_run_writer *w;
    char err[400];
} writer_sink;

static int writer_emit(void *ctx, const trace_block *b, size_t n) {
    writer_sink *ws = ctx;
    return db_run_add_blocks(ws->w, b, n, ws->err, sizeof ws->err);
}

/* Simulate run i of s straight into a new run of experiment `slug`. */
static int store_run(db *d, const scn_scenario *s, size_t i, const char *file, const char *slug,
                     char run[DB_SLUG_SIZE], char *err, size_t errlen) {
    sim_config cfg;
    char why[400];
    if (scn_config(s, i, &cfg, why, sizeof why)) {
        snprintf(err, errlen, "%s: run \"%s\": %s", file, scn_run_name(s, i), why);
        return STORE_BAD_INPUT;
    }
    writer_sink ws = { .w = NULL, .err = "" };
    int rc = db_run_begin(d, slug, scn_run_name(s, i), run, &ws.w, err, errlen);
    if (rc) return rc;
    sim_block_sink sink = { .ctx = &ws, .emit = writer_emit, .batch = 0 };
    cfg.block_sink = &sink;
    trace t;
    trace_init(&t);
    if (sim_run(&cfg, &t, why, sizeof why)) {
        db_run_abort(ws.w);   /* a writer that failed has rolled back already; abort frees it */
        if (ws.err[0]) {
            snprintf(err, errlen, "%s", ws.err);
            rc = -1;
        } else {
            snprintf(err, errlen, "%s: run \"%s\": %s", file, scn_run_name(s, i), why);
            rc = STORE_BAD_INPUT;
        }
        trace_free(&t);
        return rc;
    }
    if (!t.name) trace_set_name(&t, scn_name(s));
    rc = db_run_finish(ws.w, &t, err, errlen);
    trace_free(&t);
    return rc;
}

int store_scenario(db *d, const char *text, size_t len, const char *file,
                   const char *scenario_file, char slug[DB_SLUG_SIZE], json_t **runs_out,
                   char *err, size_t errlen) {
    scn_scenario *s = NULL;
    if (runs_out) *runs_out = NULL;
    if (scn_parse(text, len, file, &s, err, errlen)) return STORE_BAD_INPUT;
    json_t *runs = json_array();
    char *copy = malloc(len + 1);
    int rc = -1;
    if (!runs || !copy) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    memcpy(copy, text, len);
    copy[len] = '\0';
    if (db_begin(d, err, errlen)) goto out;
    if (db_create_experiment(d, scn_name(s), scn_description(s), "scenario", scenario_file, copy,
                             slug, err, errlen))
        goto rollback;
    for (size_t i = 0; i < scn_run_count(s); i++) {
        char run[DB_SLUG_SIZE];
        if ((rc = store_run(d, s, i, file, slug, run, err, errlen)) != 0) goto rollback;
        json_array_append_new(runs, json_pack("{s:s, s:o}", "run", run, "name",
                                              tj_string(scn_run_name(s, i))));
    }
    rc = -1;
    if (db_commit(d, err, errlen)) goto rollback;
    if (runs_out) {
        *runs_out = runs;
        runs = NULL;
    }
    rc = 0;
    goto out;
rollback:
    db_rollback(d);
    slug[0] = '\0';
out:
    json_decref(runs);
    free(copy);
    scn_free(s);
    return rc;
}

static bool looks_like_trace_json(const imp_file *f) {
    size_t n = f->len < 4096 ? f->len : 4096;
    const char *p = memchr(f->data, '{', n);
    if (!p) return false;
    for (const unsigned char *c = f->data; c < (const unsigned char *)p; c++)
        if (*c != ' ' && *c != '\n' && *c != '\r' && *c != '\t') return false;
    for (size_t i = 0; i + 16 <= n; i++)
        if (memcmp(f->data + i, "schedlab-trace/1", 16) == 0) return true;
    return false;
}

int store_import(db *d, const imp_file *files, size_t nfiles, const char *format,
                 const char *experiment, const char *name, char run[DB_SLUG_SIZE],
                 char exp[DB_SLUG_SIZE], char *err, size_t errlen) {
    run[0] = exp[0] = '\0';
    if (nfiles == 0) {
        snprintf(err, errlen, "import: no file given");
        return STORE_BAD_INPUT;
    }
    bool ours = format ? strcmp(format, "schedlab-trace") == 0
                       : (nfiles == 1 && looks_like_trace_json(&files[0]));
    imp_format fmt = IMP_UNKNOWN;
    if (format && !ours && (fmt = imp_format_parse(format)) == IMP_UNKNOWN) {
        char names[256] = "";
        size_t l = 0;
        for (int f = 0; f < IMP_FORMAT_COUNT; f++)
            l += (size_t)snprintf(names + l, sizeof names - l, "%s, ", imp_format_name((imp_format)f));
        snprintf(err, errlen, "format: unknown format \"%s\" (formats: %sschedlab-trace)", format,
                 names);
        return STORE_BAD_INPUT;
    }
    trace t;
    trace_init(&t);
    int rc;
    if (ours) {
        if (nfiles != 1) {
            snprintf(err, errlen, "%s: schedlab-trace imports one file at a time", files[1].name);
            rc = STORE_BAD_INPUT;
            goto out;
        }
        rc = tj_parse_trace((const char *)files[0].data, files[0].len, files[0].name, &t, err,
                            errlen) ? STORE_BAD_INPUT : 0;
    } else {
        rc = imp_import(fmt, files, nfiles, &t, err, errlen) ? STORE_BAD_INPUT : 0;
    }
    if (rc) goto out;
    char rname[256];
    if (!name) {
        const char *base = strrchr(files[0].name, '/');
        snprintf(rname, sizeof rname, "%s", base ? base + 1 : files[0].name);
        name = rname;
    }
    if ((rc = db_begin(d, err, errlen))) goto out;
    if (experiment) {
        snprintf(exp, DB_SLUG_SIZE, "%s", experiment);
    } else {
        char desc[512];
        snprintf(desc, sizeof desc, "Imported from %s (%s)", files[0].name,
                 t.source ? t.source : "unknown format");
        if ((rc = db_create_experiment(d, t.name && *t.name ? t.name : name, desc, "import", NULL,
                                       NULL, exp, err, errlen)))
            goto rollback;
    }
    if ((rc = db_store_run(d, exp, name, &t, run, err, errlen))) goto rollback;
    if ((rc = db_commit(d, err, errlen))) goto rollback;
    goto out;
rollback:
    db_rollback(d);
    run[0] = '\0';
    if (!experiment) exp[0] = '\0';
out:
    trace_free(&t);
    return rc;
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int store_seed(db *d, const char *dir, int *added, char *err, size_t errlen) {
    *added = 0;
    DIR *dp = opendir(dir);
    if (!dp) {
        snprintf(err, errlen, "%s: cannot read the scenarios folder: %s", dir, strerror(errno));
        return -1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(dp))) {
        size_t l = strlen(e->d_name);
        if (l < 6 || strcmp(e->d_name + l - 5, ".json") != 0 || e->d_name[0] == '.') continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            char **nn = realloc(names, cap * sizeof *nn);
            if (!nn) break;
            names = nn;
        }
        if (!(names[n] = strdup(e->d_name))) break;
        n++;
    }
    closedir(dp);
    if (n) qsort(names, n, sizeof *names, cmp_str);
    int failed = 0;
    err[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        bool have;
        char why[512], path[PATH_MAX], slug[DB_SLUG_SIZE];
        if (db_has_scenario_file(d, names[i], &have, why, sizeof why) == 0 && have) continue;
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        FILE *f = fopen(path, "rb");
        char *text = NULL;
        long len = -1;
        if (f && fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
            (text = malloc((size_t)len + 1)) && fread(text, 1, (size_t)len, f) == (size_t)len) {
            if (store_scenario(d, text, (size_t)len, path, names[i], slug, NULL, why,
                               sizeof why) == 0)
                (*added)++;
            else if (failed++ == 0)
                snprintf(err, errlen, "%s", why);
        } else if (failed++ == 0) {
            snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
        }
        if (f) fclose(f);
        free(text);
    }
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
    return failed;
}
