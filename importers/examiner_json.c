/* examiner_json.c -- cuda_scheduling_examiner result files into the trace
 * model (../shared/docs/examiner-json-format.md).
 *
 * One file is one benchmark instance, i.e. one stream; the files of one
 * scenario (same scenario_name) become one run, kernels in file order and
 * then in `times` order. Every version of the format is read:
 *   - current (2017-08 on): cuda_launch_times [before, after, sync-or-0];
 *   - RTSS'17 artifact: kernel_times [gpu start, gpu end] instead;
 *   - early 2017: thread_count/block_count in the header, no block_smids,
 *     and in the first week keys with spaces ("kernel times", "block times").
 * times[0] is always {} and CPU objects (cpu_times ...) carry no kernel.
 *
 * All times are seconds (%.9f) on one clock; they become integer ns here.
 * A truncated file (a failed run never writes its closing "]}") is an error
 * naming the line, so nothing of it is imported. */
#include "archive.h"
#include "csv.h"
#include "formats.h"
#include "sqlite_util.h"
#include "jsonr.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ex_ctx {
    imp_ctx *cx;             /* the import's progress sink (may be NULL) */
    const char *file;
    char *err;
    size_t errlen;
    /* progress (issue 15): bytes of the files before this one, this one's
     * bytes, and all files' bytes; the JSON parse counts for half a file,
     * its "times" entries for the other half */
    double bytes_before, bytes_file, bytes_all;
    /* this file's kernels whose blocks had no block_smids (the format
     * before 2017-03-23), and the first of them (its times[] index) */
    size_t no_smids, no_smids_first;
} ex_ctx;

static int efail(ex_ctx *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    imp_verror(c->err, c->errlen, c->file, ": ", fmt, ap);
    va_end(ap);
    return -1;
}

/* The first week's writer used spaces where later ones use underscores. */
static json_t *jget(json_t *o, const char *key) {
    json_t *v = json_object_get(o, key);
    if (v) return v;
    char alt[64];
    size_t n = strlen(key);
    if (n >= sizeof alt) return NULL;
    for (size_t i = 0; i <= n; i++) alt[i] = key[i] == '_' ? ' ' : key[i];
    return json_object_get(o, alt);
}

static int sec_to_ns(ex_ctx *c, json_t *v, const char *where, size_t i, int64_t *out) {
    if (!json_is_number(v))
        return efail(c, "%s[%zu]: expected a number of seconds", where, i);
    double x = json_number_value(v);
    if (!isfinite(x) || fabs(x) > 9.0e9)
        return efail(c, "%s[%zu]: %g seconds is out of range", where, i, x);
    *out = llround(x * 1e9);
    return 0;
}

static int int_value(ex_ctx *c, json_t *v, const char *where, int64_t lo, int64_t hi,
                     int64_t *out) {
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
        return efail(c, "%s: expected an integer in [%lld, %lld]", where, (long long)lo,
                     (long long)hi);
    *out = json_integer_value(v);
    return 0;
}

static bool is_kernel_entry(json_t *e) {
    return jget(e, "block_times") || jget(e, "kernel_times") || jget(e, "cuda_launch_times");
}

typedef struct ex_file_info {
    const char *stream;      /* display name of this file's stream */
    trace_str process;
    int64_t threads, blocks; /* early-format header values; 0 = absent */
    const char *bench;
} ex_file_info;

static int add_kernel(ex_ctx *c, trace *t, json_t *e, size_t ti, const ex_file_info *fi) {
    char where[96];
    trace_kernel *k = trace_add_kernel(t);
    if (!k) return efail(c, "out of memory");
    int32_t ki = (int32_t)(t->kernels.n - 1);

    json_t *jn = jget(e, "kernel_name");
    const char *name = json_is_string(jn) ? json_string_value(jn)
                       : fi->bench ? fi->bench : "kernel";
    char dbuf[1024];
    const char *shown = imp_demangle(name, dbuf, sizeof dbuf);
    trace_str nid = trace_intern(t, shown ? shown : name);
    trace_str rid = shown ? trace_intern(t, name) : 0;
    trace_str sid = trace_intern(t, fi->stream);
    k = &t->kernels.v[ki];
    k->name = nid;
    k->raw_name = rid;
    k->stream = sid;
    k->process = fi->process;

    int64_t v = 0;
    json_t *j;
    if ((j = jget(e, "thread_count"))) {
        snprintf(where, sizeof where, "times[%zu].thread_count", ti);
        if (int_value(c, j, where, 1, INT32_MAX, &v) < 0) return -1;
        k->threads = (int32_t)v;
    } else {
        k->threads = (int32_t)fi->threads;
    }
    int64_t declared = fi->blocks;
    if ((j = jget(e, "block_count"))) {
        snprintf(where, sizeof where, "times[%zu].block_count", ti);
        if (int_value(c, j, where, 1, INT32_MAX, &declared) < 0) return -1;
    }
    if ((j = jget(e, "shared_memory"))) {
        snprintf(where, sizeof where, "times[%zu].shared_memory", ti);
        if (int_value(c, j, where, 0, INT64_MAX, &v) < 0) return -1;
        k->smem = v;
    }
    if ((j = jget(e, "cuda_launch_times"))) {
        snprintf(where, sizeof where, "times[%zu].cuda_launch_times", ti);
        if (!json_is_array(j) || json_array_size(j) < 1)
            return efail(c, "%s: expected an array of 3 times", where);
        if (sec_to_ns(c, json_array_get(j, 0), where, 0, &v) < 0) return -1;
        k->issue = v;
    }
    json_t *kt = jget(e, "kernel_times");
    json_t *bt = jget(e, "block_times");
    json_t *sm = jget(e, "block_smids");
    if (kt) {
        snprintf(where, sizeof where, "times[%zu].kernel_times", ti);
        if (!json_is_array(kt) || json_array_size(kt) != 2)
            return efail(c, "%s: expected [gpu start, gpu end]", where);
        int64_t s = 0, en = 0;
        if (sec_to_ns(c, json_array_get(kt, 0), where, 0, &s) < 0 ||
            sec_to_ns(c, json_array_get(kt, 1), where, 1, &en) < 0)
            return -1;
        if (en < s) return efail(c, "%s: the kernel ends before it starts", where);
        k->first_block = s;
        k->end = en;
    }
    if (!bt) {
        k->blocks = declared;
        return 0;
    }
    snprintf(where, sizeof where, "times[%zu].block_times", ti);
    if (!json_is_array(bt) || json_array_size(bt) % 2)
        return efail(c, "%s: expected an array of start,end pairs (an even count), got %zu "
                        "values", where, json_is_array(bt) ? json_array_size(bt) : 0);
    size_t nb = json_array_size(bt) / 2;
    if (declared && (size_t)declared != nb)
        return efail(c, "%s: %zu blocks, but block_count is %lld", where, nb,
                     (long long)declared);
    if (sm && (!json_is_array(sm) || json_array_size(sm) != nb))
        return efail(c, "times[%zu].block_smids: %zu entries for %zu blocks", ti,
                     json_is_array(sm) ? json_array_size(sm) : 0, nb);
    if (nb > INT32_MAX) return efail(c, "%s: too many blocks", where);
    if (trace_reserve_blocks(t, nb) < 0) return efail(c, "out of memory");
    int64_t first = TRACE_NONE, last_start = TRACE_NONE, end = TRACE_NONE;
    for (size_t i = 0; i < nb; i++) {
        int64_t s = 0, en = 0, smid = -1;
        if (sec_to_ns(c, json_array_get(bt, 2 * i), where, 2 * i, &s) < 0 ||
            sec_to_ns(c, json_array_get(bt, 2 * i + 1), where, 2 * i + 1, &en) < 0)
            return -1;
        if (en < s)
            return efail(c, "%s[%zu]: block %zu ends before it starts", where, 2 * i + 1, i);
        if (sm) {
            char w2[96];
            snprintf(w2, sizeof w2, "times[%zu].block_smids[%zu]", ti, i);
            if (int_value(c, json_array_get(sm, i), w2, 0, INT32_MAX, &smid) < 0) return -1;
        }
        trace_block *b = trace_add_block(t);
        if (!b) return efail(c, "out of memory");
        b->kernel = ki;
        b->index = (int32_t)i;
        b->sm = (int32_t)smid;
        b->start = s;
        b->end = en;
        if (first == TRACE_NONE || s < first) first = s;
        if (last_start == TRACE_NONE || s > last_start) last_start = s;
        if (end == TRACE_NONE || en > end) end = en;
    }
    k = &t->kernels.v[ki];
    k->blocks = (int64_t)nb;
    if (nb) {
        k->first_block = first;
        k->fully_dispatched = last_start;
        k->end = end;
    }
    if (!sm && nb) {
        /* no block_smids (examiner-json-format.md §1.4: added 2017-03-23):
         * a stored block has its SM (docs/trace-format.md: 0..1023), which
         * these never had, so the kernel keeps its times from them and
         * its block count, and the blocks are left out (said once a file) */
        t->blocks.n -= nb;
        if (c->no_smids++ == 0) c->no_smids_first = ti;
    }
    return 0;
}

static json_t *load(ex_ctx *c, const imp_file *f) {
    json_error_t je;
    /* a UTF-8 byte order mark (Windows tools write one) is passed over, as
     * RFC 8259 §8.1 lets a parser; jansson refuses it */
    size_t bom = f->len >= 3 && memcmp(f->data, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    json_t *root = json_loadb((const char *)f->data + bom, f->len - bom, 0, &je);
    if (root) return root;
    char text[sizeof je.text + 4];
    imp_quote_value(text, sizeof text, je.text, sizeof je.text);  /* it may quote raw input */
    if (json_error_code(&je) == json_error_premature_end_of_input ||
        (je.position >= 0 && (size_t)je.position >= f->len - bom && f->len > bom))
        efail(c, "truncated at line %d (the run did not finish writing it)", je.line);
    else if (je.line >= 1)
        /* the place goes right after the file name, as everywhere */
        snprintf(c->err, c->errlen, "%s:%d:%d: invalid JSON: %s", c->file, je.line, jr_error_column(&je),
                 text);
    else
        efail(c, "invalid JSON: %s", text);
    return NULL;
}

static int import_one(ex_ctx *c, trace *t, json_t *root, const char *stream, size_t *nkernels) {
    ex_file_info fi;
    memset(&fi, 0, sizeof fi);
    fi.stream = stream;
    json_t *j = jget(root, "benchmark_name");
    fi.bench = json_is_string(j) ? json_string_value(j) : NULL;
    json_t *pid = json_object_get(root, "PID");
    char pbuf[48];
    if (json_is_integer(pid)) snprintf(pbuf, sizeof pbuf, "pid %lld", (long long)json_integer_value(pid));
    else snprintf(pbuf, sizeof pbuf, "P0");
    fi.process = trace_intern(t, pbuf);
    if ((j = jget(root, "thread_count")) && int_value(c, j, "thread_count", 1, INT32_MAX, &fi.threads) < 0)
        return -1;
    if ((j = jget(root, "block_count")) && int_value(c, j, "block_count", 1, INT32_MAX, &fi.blocks) < 0)
        return -1;
    if (fi.bench && strcmp(fi.bench, "Matrix Multiply") == 0) {
        trace_set_meta(t, "warning", "Matrix Multiply records block times with clock64() "
                                     "(SM cycles), not globaltimer: its blocks do not line up");
        imp_warn(t, c->file, "Matrix Multiply records block times with clock64() (SM cycles), "
                 "not globaltimer: its blocks do not line up");
    }
    json_t *times = json_object_get(root, "times");
    if (!json_is_array(times)) {
        /* schedlab's own documents are JSON objects too, and come here by
         * detection (only "schedlab-trace/1" is a trace): say what the file
         * is rather than what an examiner result would have (cli.md: an
         * error names the problem) */
        const char *schema = json_string_value(json_object_get(root, "schema"));
        if (schema && strncmp(schema, "schedlab-", 9) == 0) {
            const char *what = "not a trace";
            /* our own trace, with examiner-json named for it */
            if (strcmp(schema, "schedlab-trace/1") == 0)
                return efail(c, "schema: \"schedlab-trace/1\": a schedlab trace, not "
                             "cuda_scheduling_examiner results; import it as format "
                             "schedlab-trace");
            if (strcmp(schema, "schedlab-scenario/1") == 0 ||
                strcmp(schema, "schedlab-replay-devices/1") == 0)
                what = "a scenario, not a trace: `schedlab simulate` runs it";
            else if (strcmp(schema, "schedlab-taskset/1") == 0)
                what = "a taskset, not a trace: `schedlab rta` analyses it";
            else if (strcmp(schema, "schedlab-sweep/1") == 0)
                what = "a sweep spec, not a trace: `schedlab sweep` runs it";
            else if (strcmp(schema, "schedlab-sweep-result/1") == 0)
                what = "a sweep result, not a trace: `schedlab merge` stores it";
            return efail(c, "schema: \"%.60s\" is %s (a trace to import is \"schedlab-trace/1\" "
                         "or a profiler's file)", schema, what);
        }
        return efail(c, "no \"times\" array");
    }
    size_t ntimes = json_array_size(times);
    for (size_t i = 0; i < ntimes; i++) {
        if (!imp_progress_at(c->cx, c->bytes_before + c->bytes_file * (0.5 + 0.5 * (double)i / (double)ntimes),
                             c->bytes_all))
            return efail(c, "%s", IMP_CANCELLED);
        json_t *e = json_array_get(times, i);
        if (!json_is_object(e)) return efail(c, "times[%zu]: expected an object", i);
        if (!is_kernel_entry(e)) continue;  /* times[0] = {} and CPU-time objects */
        if (add_kernel(c, t, e, i, &fi) < 0) return -1;
        (*nkernels)++;
    }
    return 0;
}

static void base_name(const char *path, char *out, size_t outlen) {
    size_t n = strlen(path);
    /* a tar member is named "results.tar(dir/k1.json)" */
    const char *open = n && path[n - 1] == ')' ? strchr(path, '(') : NULL;
    const char *end = open ? path + n - 1 : path + n;
    const char *b = open ? open + 1 : path;
    for (const char *p = b; p < end; p++)
        if (*p == '/') b = p + 1;
    n = (size_t)(end - b);
    if (n > 5 && strncmp(b + n - 5, ".json", 5) == 0) n -= 5;
    snprintf(out, outlen, "%.*s", (int)(n < 200 ? n : 200), b);
}

int imp_examiner_json(imp_ctx *cx, const imp_file *files, size_t nfiles, trace *out, char *err,
                      size_t errlen) {
    ex_ctx c = {.cx = cx, .file = "examiner.json", .err = err, .errlen = errlen};
    if (nfiles == 0) return efail(&c, "no files given");
    char *scenario = NULL;
    const char *scenario_file = NULL;
    char **streams = calloc(nfiles, sizeof *streams);
    if (!streams) return efail(&c, "out of memory");
    int ret = -1;
    size_t nkernels = 0;
    int64_t max_threads = 0;
    for (size_t f = 0; f < nfiles; f++) c.bytes_all += (double)files[f].len;
    for (size_t f = 0; f < nfiles; f++) {
        c.file = files[f].name ? files[f].name : "examiner.json";
        c.bytes_file = (double)files[f].len;
        if (!imp_progress_at(cx, c.bytes_before, c.bytes_all)) {
            efail(&c, "%s", IMP_CANCELLED);
            goto done;
        }
        json_t *root = load(&c, &files[f]);
        if (!root) goto done;
        int rc = -1;
        if (!imp_progress_at(cx, c.bytes_before + 0.5 * c.bytes_file, c.bytes_all)) {
            efail(&c, "%s", IMP_CANCELLED);
            goto next;
        }
        if (!json_is_object(root)) {
            efail(&c, "expected a JSON object (a cuda_scheduling_examiner result file)");
            goto next;
        }
        if (json_object_get(root, "plugin_name") && !json_object_get(root, "benchmark_name")) {
            efail(&c, "a hip_plugin_framework result (block times in GPU clock cycles, no SM "
                      "ids) cannot be imported");
            goto next;
        }
        json_t *sc = json_object_get(root, "scenario_name");
        const char *sname = json_is_string(sc) ? json_string_value(sc) : "";
        if (!scenario) {
            scenario = strdup(sname);
            scenario_file = c.file;
            if (!scenario) {
                efail(&c, "out of memory");
                goto next;
            }
        } else if (strcmp(scenario, sname) != 0) {
            char q1[96], q2[96];
            efail(&c, "scenario_name \"%s\" differs from \"%s\" in %s; import one "
                      "scenario at a time", imp_quote_value(q1, sizeof q1, sname, 80),
                  imp_quote_value(q2, sizeof q2, scenario, 80), scenario_file);
            goto next;
        }
        json_t *mrt = json_object_get(root, "max_resident_threads");
        if (json_is_integer(mrt) && json_integer_value(mrt) > max_threads)
            max_threads = json_integer_value(mrt);
        /* the viewers name a file's stream by its label */
        json_t *lb = json_object_get(root, "label");
        json_t *bn = json_object_get(root, "benchmark_name");
        char sbuf[256];
        if (json_is_string(lb) && *json_string_value(lb))
            snprintf(sbuf, sizeof sbuf, "%.200s", json_string_value(lb));
        else if (json_is_string(bn) && *json_string_value(bn) && nfiles == 1)
            snprintf(sbuf, sizeof sbuf, "%.200s", json_string_value(bn));
        else
            base_name(c.file, sbuf, sizeof sbuf);
        for (size_t g = 0; g < f; g++)
            if (streams[g] && strcmp(streams[g], sbuf) == 0) {
                char b2[256];
                base_name(c.file, b2, sizeof b2);
                size_t used = strlen(sbuf);
                snprintf(sbuf + used, sizeof sbuf - used, " (%.40s)", b2);
                break;
            }
        streams[f] = strdup(sbuf);
        if (!streams[f]) {
            efail(&c, "out of memory");
            goto next;
        }
        c.no_smids = 0;
        rc = import_one(&c, out, root, sbuf, &nkernels);
        if (rc == 0 && c.no_smids &&
            imp_warn(out, c.file, "times[%zu]: no \"block_smids\" (the result format before "
                     "2017-03-23), so the blocks' SMs are unknown: %zu kernel%s kept with %s "
                     "start, end and block count, without block records", c.no_smids_first,
                     c.no_smids, c.no_smids == 1 ? "" : "s", c.no_smids == 1 ? "its" : "their") < 0)
            rc = efail(&c, "out of memory");
    next:
        json_decref(root);
        if (rc < 0) goto done;
        c.bytes_before += c.bytes_file;
    }
    if (nkernels == 0) {
        c.file = files[0].name ? files[0].name : "examiner.json";
        efail(&c, "no kernel records in \"times\" (only CPU times?)");
        goto done;
    }
    if (scenario && *scenario) {
        trace_set_name(out, scenario);
        trace_set_meta(out, "scenario", scenario);
    }
    if (max_threads) {
        char num[32];
        snprintf(num, sizeof num, "%lld", (long long)max_threads);
        trace_set_meta(out, "max_resident_threads", num);
    }
    if (out->oom) {
        efail(&c, "out of memory");
        goto done;
    }
    ret = 0;
done:
    for (size_t f = 0; f < nfiles; f++) free(streams[f]);
    free(streams);
    free(scenario);
    return ret;
}

/* an archive or a JSON object that is neither schedlab's own trace nor a
 * PyTorch profiler trace (or a job of them); never an SQLite file, whatever
 * its bytes at a tar header's offsets: the descriptors' content tests never
 * both say yes (fuzz_detect) */
static bool detect(const imp_file *f) {
    bool schema;
    if (imp_sql_is_sqlite(f->data, f->len)) return false;
    if (imp_pytorch_detect(f->data, f->len)) return false;
    if (imp_archive_detect(f->data, f->len) != IMP_ARCHIVE_NONE) return true;
    return imp_sniff_json_object(f->data, f->len, &schema) && !schema;
}

const imp_importer imp_examiner_json_format = {
    .name = "examiner-json",
    .hint = "cuda_scheduling_examiner result JSON, one file per stream or a .zip/.tar of them",
    .detect = detect,
    .suffix = ".json",
    .read = imp_examiner_json,
    .multi_file = true,
};
