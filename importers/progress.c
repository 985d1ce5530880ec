/* progress.c -- the per-thread progress sink of formats.h (issue 15).
 *
 * Throttling lives here so the format loops can call imp_progress_at on
 * every row: a report goes out only when the fraction has grown by 1 % or
 * more since the last one, so a sink sees at most ~100 calls per import and
 * a row costs one division and a compare. */
#include "formats.h"

typedef struct prog_state {
    imp_progress_fn fn;
    void *user;
    double last;                 /* the last fraction reported */
} prog_state;

/* one import runs per thread at a time: the server's workers each run one */
static _Thread_local prog_state cur;

/* the smallest growth worth a report */
#define STEP 0.01
/* the parse never claims to be done before it is */
#define CAP 0.999

void imp_progress_begin(const imp_options *opts) {
    cur.fn = opts ? opts->progress : NULL;
    cur.user = opts ? opts->user : NULL;
    cur.last = 0.0;
    if (cur.fn) cur.fn(cur.user, 0.0);
}

void imp_progress_at(double done, double total) {
    if (!cur.fn || !(total > 0)) return;
    double f = done / total;
    if (f > CAP) f = CAP;
    if (!(f >= cur.last + STEP)) return;   /* also refuses NaN */
    cur.last = f;
    cur.fn(cur.user, f);
}

bool imp_progress_active(void) { return cur.fn != NULL; }

void imp_progress_end(bool ok) {
    if (cur.fn && ok) cur.fn(cur.user, 1.0);
    cur.fn = NULL;
    cur.user = NULL;
}
