/* host_script.c -- the scenario's host: every op is issued at its `at`, in
 * array order on ties ("launched after" of the TX2 paper's N1/N2 is this
 * order). What the op then does is the streams' business. */
#include <stdio.h>
#include <stdlib.h>

#include "state.h"
#include "streams.h"

typedef struct issue_key {
    int64_t at;
    int32_t op;
} issue_key;

typedef struct script_state {
    issue_key *order;        /* ops by (at, index) */
    size_t n, cursor;
} script_state;

static int cmp_issue(const void *a, const void *b) {
    const issue_key *x = a, *y = b;
    if (x->at != y->at) return x->at < y->at ? -1 : 1;
    return (x->op > y->op) - (x->op < y->op);
}

static int script_init(void *self, sim_state *st, char *err, size_t errlen) {
    script_state *h = self;
    const sim_config *cfg = st->cfg;
    h->n = cfg->nops;
    h->order = malloc((h->n ? h->n : 1) * sizeof *h->order);
    if (!h->order) {
        snprintf(err, errlen, "simulation: out of memory");
        return -1;
    }
    for (size_t i = 0; i < h->n; i++) {
        h->order[i].at = cfg->ops[i].at;
        h->order[i].op = (int32_t)i;
    }
    qsort(h->order, h->n, sizeof *h->order, cmp_issue);
    return 0;
}

static void script_fini(void *self) {
    script_state *h = self;
    free(h->order);
}

static int64_t script_next_time(void *self) {
    const script_state *h = self;
    return h->cursor < h->n ? h->order[h->cursor].at : INT64_MAX;
}

static void script_issue(void *self, sim_state *st, int64_t t) {
    script_state *h = self;
    while (h->cursor < h->n && h->order[h->cursor].at == t)
        streams_host_issue(st, h->order[h->cursor++].op, t);
}

const host_policy host_script = {
    .name = "script",
    .doc = "the scenario's ops, each issued at its time, in file order on ties",
    .state_size = sizeof(script_state),
    .init = script_init,
    .fini = script_fini,
    .next_time = script_next_time,
    .issue = script_issue,
};
