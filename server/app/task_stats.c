/* task_stats.c -- see task_stats.h. */
#include "task_stats.h"

#include <stdlib.h>
#include <string.h>

json_t *task_stats_json(const trace *t, int bins) {
    if (bins < 1) bins = 1;
    if (bins > TASK_STATS_BINS_MAX) bins = TASK_STATS_BINS_MAX;
    size_t n = t->jobs.n;
    /* the tasks in first-job order, by their interned name */
    trace_str *names = calloc(n ? n : 1, sizeof *names);
    int64_t *mort = calloc(n ? n : 1, sizeof *mort);
    size_t nt = 0;
    json_t *out = NULL, *arr = NULL;
    if (!names || !mort) goto done;
    for (size_t i = 0; i < n; i++) {
        const trace_job *j = &t->jobs.v[i];
        size_t k = 0;
        while (k < nt && names[k] != j->task) k++;
        if (k == nt) names[nt++] = j->task;
        if (j->end != TRACE_NONE && j->release != TRACE_NONE && j->end - j->release > mort[k])
            mort[k] = j->end - j->release;
    }
    arr = json_array();
    for (size_t k = 0; arr && k < nt; k++) {
        int64_t bin = mort[k] / bins + 1;   /* bins cover 0..MORT */
        json_int_t *cnt = calloc((size_t)bins, sizeof *cnt);
        if (!cnt) goto done;
        json_int_t jobs = 0, misses = 0, done_jobs = 0;
        int64_t mn = 0;
        double sum = 0;
        for (size_t i = 0; i < n; i++) {
            const trace_job *j = &t->jobs.v[i];
            if (j->task != names[k]) continue;
            jobs++;
            if (j->end == TRACE_NONE || j->release == TRACE_NONE) continue;
            int64_t r = j->end - j->release;
            if (done_jobs == 0 || r < mn) mn = r;
            done_jobs++;
            sum += (double)r;
            misses += j->deadline != TRACE_NONE && j->end > j->deadline;
            int64_t b = r / bin;
            cnt[b < bins ? b : bins - 1]++;
        }
        json_t *counts = json_array();
        for (int b = 0; counts && b < bins; b++) json_array_append_new(counts, json_integer(cnt[b]));
        free(cnt);
        const char *nm = trace_str_get(t, names[k]);
        json_t *o = json_pack("{s:s, s:I, s:I, s:I, s:o, s:o, s:I, s:{s:I, s:o}}", "task",
                              nm ? nm : "", "jobs", jobs, "completed", done_jobs, "misses", misses,
                              "min", done_jobs ? json_integer(mn) : json_null(), "mean",
                              done_jobs ? json_real(sum / (double)done_jobs) : json_null(), "mort",
                              (json_int_t)mort[k], "histogram", "bin_ns", (json_int_t)bin,
                              "counts", counts ? counts : json_array());
        if (!o || json_array_append_new(arr, o)) goto done;
    }
    out = json_pack("{s:o}", "tasks", arr);
    arr = NULL;
done:
    json_decref(arr);
    free(names);
    free(mort);
    return out;
}
