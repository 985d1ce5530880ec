/* replay_calls.c -- the host's calls of part of a trace. See replay_calls.h. */
#include "replay_calls.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* A call's task: its process and the CPU task it names, or its stream
 * where it names none (the stream's own task). */
typedef struct taskkey {
    trace_str proc, task, stream;
    size_t call;
} taskkey;

/* A record left out of the part, for the syncs that may have waited for it. */
typedef struct outrec {
    trace_str proc, stream;
    int64_t issue;
    int64_t end;        /* INT64_MAX: unknown (it never ended) */
} outrec;

/* A call of the part before its strings move to it: t's call, its record
 * renumbered, its time moved; seq is its place in t. */
typedef struct partcall {
    trace_host_call c;
    size_t seq;
} partcall;

static int cmp_str(trace_str a, trace_str b) {
    return (a > b) - (a < b);
}

static int cmp_taskkey(const void *a, const void *b) {
    const taskkey *x = a, *y = b;
    int c = cmp_str(x->proc, y->proc);
    if (!c) c = cmp_str(x->task, y->task);
    if (!c) c = cmp_str(x->stream, y->stream);
    return c;
}

static int cmp_outrec(const void *a, const void *b) {
    const outrec *x = a, *y = b;
    return (x->end > y->end) - (x->end < y->end);
}

static int cmp_partcall(const void *a, const void *b) {
    const partcall *x = a, *y = b;
    if (x->c.at != y->c.at) return x->c.at < y->c.at ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

static int cmp_proc(const void *a, const void *b) {
    return cmp_str(*(const trace_str *)a, *(const trace_str *)b);
}

/* The NULL stream, as the replay names it (replay.c, stream_of). */
static bool null_stream(const trace *t, trace_str s) {
    const char *n = trace_str_get(t, s);
    return !n || !*n || strcmp(n, "null") == 0;
}

/* Call c's kernel or copy (NULL for a sync, or a record t does not have). */
static const trace_kernel *call_kernel(const trace *t, const trace_host_call *c) {
    return c->kind == TRACE_CALL_KERNEL && c->record >= 0 && (size_t)c->record < t->kernels.n
               ? &t->kernels.v[c->record]
               : NULL;
}

static const trace_copy *call_copy(const trace *t, const trace_host_call *c) {
    return c->kind == TRACE_CALL_COPY && c->record >= 0 && (size_t)c->record < t->copies.n
               ? &t->copies.v[c->record]
               : NULL;
}

static bool is_sync(const trace_host_call *c) {
    return c->kind == TRACE_CALL_SYNC || c->kind == TRACE_CALL_DEVICE_SYNC;
}

/* Whether sync c waited for one of the left-out records v (n, by end): in
 * its scope (its process; its stream unless `whole`), called by its call
 * and unfinished then, ended by its return. */
static bool waited_for_out(const outrec *v, size_t n, const trace_host_call *c, bool whole) {
    if (c->issue == TRACE_NONE) return false;   /* never called: it waited for nothing */
    int64_t until = c->end == TRACE_NONE ? INT64_MAX : c->end;
    size_t lo = 0, hi = n;   /* the first that ended after the call */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].end <= c->issue) lo = mid + 1;
        else hi = mid;
    }
    for (size_t i = lo; i < n && v[i].end <= until; i++)
        if (v[i].issue != TRACE_NONE && v[i].issue <= c->issue && v[i].proc == c->process &&
            (whole || v[i].stream == c->stream))
            return true;
    return false;
}

int replay_calls_subset(const trace *t, const int32_t *kmap, const int32_t *cmap,
                        const bool *here, trace *o) {
    size_t n = t->host_calls.n;
    if (!n) return 0;
    size_t nrec = t->kernels.n + t->copies.n;
    taskkey *keys = malloc(n * sizeof *keys);
    size_t *tid = malloc(n * sizeof *tid);
    int64_t *rel = malloc(n * sizeof *rel);       /* per task: held until (INT64_MIN: not) */
    bool *never = calloc(n, sizeof *never);       /* per task: held for good */
    outrec *outs = malloc((nrec + 1) * sizeof *outs);
    trace_str *nullp = malloc((nrec + 1) * sizeof *nullp);   /* processes using NULL */
    partcall *part = malloc(n * sizeof *part);
    int rc = -1;
    if (!keys || !tid || !rel || !never || !outs || !nullp || !part) goto done;

    /* each call's task, numbered */
    for (size_t j = 0; j < n; j++) {
        const trace_host_call *c = &t->host_calls.v[j];
        const trace_kernel *k = call_kernel(t, c);
        const trace_copy *cp = call_copy(t, c);
        trace_str proc = k ? k->process : cp ? cp->process : c->process;
        trace_str stream = k ? k->stream : cp ? cp->stream : c->stream;
        keys[j] = (taskkey){proc, c->task, c->task ? 0 : stream, j};
    }
    qsort(keys, n, sizeof *keys, cmp_taskkey);
    for (size_t j = 0, id = 0; j < n; j++) {
        if (j && cmp_taskkey(&keys[j - 1], &keys[j]) != 0) id++;
        tid[keys[j].call] = id;
        rel[j] = INT64_MIN;
    }

    /* the records left out, by end; the processes whose NULL stream has work */
    size_t nout = 0, nnull = 0;
    for (size_t i = 0; i < nrec; i++) {
        bool kern = i < t->kernels.n;
        assert(kern ? t->kernels.v != NULL : t->copies.v != NULL);   /* i < nrec: the vector's n > 0 */
        const trace_kernel *k = kern ? &t->kernels.v[i] : NULL;
        const trace_copy *cp = kern ? NULL : &t->copies.v[i - t->kernels.n];
        trace_str proc = kern ? k->process : cp->process;
        trace_str stream = kern ? k->stream : cp->stream;
        if (null_stream(t, stream)) nullp[nnull++] = proc;
        if ((kern ? kmap[i] : cmap[i - t->kernels.n]) != REPLAY_CALLS_OUT) continue;
        int64_t end = kern ? k->end : cp->end;
        outs[nout++] = (outrec){proc, stream, kern ? k->issue : cp->issue,
                                end == TRACE_NONE ? INT64_MAX : end};
    }
    qsort(outs, nout, sizeof *outs, cmp_outrec);
    qsort(nullp, nnull, sizeof *nullp, cmp_proc);

    size_t np = 0;
    for (size_t j = 0; j < n; j++) {
        const trace_host_call *c = &t->host_calls.v[j];
        size_t tk = tid[j];
        if (never[tk]) continue;   /* its task never got this far */
        const trace_kernel *k = call_kernel(t, c);
        const trace_copy *cp = call_copy(t, c);
        int32_t to = k ? kmap[c->record] : cp ? cmap[c->record] : REPLAY_CALLS_OUT;
        bool keep;
        int64_t held_until = TRACE_NONE;   /* a left-out blocking call: its return */
        if (k || cp) {
            keep = to >= 0;
            if (!keep && cp && c->blocking) held_until = cp->end;
        } else if (is_sync(c)) {
            bool whole = c->kind == TRACE_CALL_DEVICE_SYNC || null_stream(t, c->stream) ||
                         bsearch(&c->process, nullp, nnull, sizeof *nullp, cmp_proc) != NULL;
            keep = (!here || here[j]) && !waited_for_out(outs, nout, c, whole);
            if (!keep) held_until = c->end;
        } else {
            continue;   /* names no record of t (the reader refuses these) */
        }
        if (keep) {
            partcall *p = &part[np++];
            p->c = *c;
            p->seq = j;
            if (k || cp) p->c.record = to;
            if (rel[tk] != INT64_MIN && p->c.at != TRACE_NONE && p->c.at < rel[tk])
                p->c.at = rel[tk];
        } else if ((cp && c->blocking) || is_sync(c)) {
            if (held_until == TRACE_NONE) never[tk] = true;
            else if (held_until > rel[tk]) rel[tk] = held_until;
        }
    }
    qsort(part, np, sizeof *part, cmp_partcall);
    for (size_t i = 0; i < np; i++) {
        const trace_host_call *c = &part[i].c;
        trace_host_call *d = trace_add_host_call(o);
        if (!d) goto done;
        *d = *c;
        d->task = trace_intern(o, trace_str_get(t, c->task));
        d->name = trace_intern(o, trace_str_get(t, c->name));
        d->stream = trace_intern(o, trace_str_get(t, c->stream));
        d->process = trace_intern(o, trace_str_get(t, c->process));
    }
    rc = o->oom ? -1 : 0;
done:
    free(keys);
    free(tid);
    free(rel);
    free(never);
    free(outs);
    free(nullp);
    free(part);
    return rc;
}
