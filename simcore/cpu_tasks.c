/* cpu_tasks.c -- which CPU task issues to each stream (sim.h:
 * sim_stream_tasks).
 *
 * TX2 paper §2.2: "we use the term ... *task* to refer to OS threads
 * executing on CPUs that share an address space"; §3.2 (Fig. 3, Fig. 4):
 * "tau0 uses a single stream, S1, and tau1 uses two streams, S2 and S3".
 * A task named on several streams is one thread issuing to all of them,
 * so what blocks it (streams.c: a sync, a blocking copy) holds its ops on
 * every one of them. Names are sorted once (not compared pairwise): a
 * replayed trace may declare tens of thousands of streams. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

typedef struct named {
    const char *task, *process;
    size_t i;                /* index in streams */
} named;

/* by name, then by stream index: each name's first stream leads its run */
static int cmp_named(const void *a, const void *b) {
    const named *x = a, *y = b;
    int c = strcmp(x->task, y->task);
    if (c) return c;
    return (x->i > y->i) - (x->i < y->i);
}

static const char *process_of(const sim_stream *s) {
    return s->process ? s->process : "P0";   /* as sim.c names it */
}

int64_t sim_stream_tasks(const sim_stream *streams, size_t n, int32_t *task_of, char *err,
                         size_t errlen) {
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (!streams[i].task) continue;
        if (!*streams[i].task) {
            snprintf(err, errlen, "streams[%zu].task: empty; name the CPU task that issues to "
                     "this stream, or leave the key out (a task of its own)", i);
            return -1;
        }
        m++;
    }
    named *v = malloc((m ? m : 1) * sizeof *v);
    size_t *lead = malloc((n ? n : 1) * sizeof *lead);   /* the first stream of i's task */
    if (!v || !lead) {
        free(v);
        free(lead);
        snprintf(err, errlen, "simulation: out of memory");
        return -1;
    }
    m = 0;
    for (size_t i = 0; i < n; i++) {
        lead[i] = i;
        if (streams[i].task) v[m++] = (named){ streams[i].task, process_of(&streams[i]), i };
    }
    qsort(v, m, sizeof *v, cmp_named);
    for (size_t a = 0, b; a < m; a = b) {
        for (b = a + 1; b < m && strcmp(v[b].task, v[a].task) == 0; b++) {
            if (strcmp(v[b].process, v[a].process) != 0) {
                /* v is in stream order within a task (cmp_named), so b is
                 * the earliest stream in conflict with the task's first */
                size_t worst = b;
                snprintf(err, errlen, "streams[%zu].task: task \"%s\" issues to streams[%zu] of "
                         "process \"%s\", and a task is an OS thread of one process (TX2 paper "
                         "§2.2), not of \"%s\"; give each process's threads names of their "
                         "own", v[worst].i, v[a].task, v[a].i, v[a].process, v[worst].process);
                free(v);
                free(lead);
                return -1;
            }
            lead[v[b].i] = v[a].i;
        }
    }
    int64_t ntasks = 0;
    for (size_t i = 0; i < n; i++) {
        if (lead[i] == i) {
            if (task_of) task_of[i] = (int32_t)ntasks;
            ntasks++;
        } else if (task_of) {
            task_of[i] = task_of[lead[i]];
        }
    }
    free(v);
    free(lead);
    return ntasks;
}
