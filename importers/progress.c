/* progress.c -- the progress sink of formats.h (issue 15), in the import's
 * context (imp_ctx), so server workers import side by side with nothing
 * shared between them.
 *
 * Throttling lives here so the format loops can call imp_progress_at on
 * every row: a report goes out only when the fraction has grown by 1 % or
 * more since the last one, so a sink sees at most ~100 calls per import and
 * a row costs one division and a compare. */
#include "formats.h"

/* the smallest growth worth a report */
#define STEP 0.01
/* the parse never claims to be done before it is */
#define CAP 0.999

void imp_progress_begin(imp_ctx *cx, const imp_options *opts) {
    cx->progress = opts ? opts->progress : NULL;
    cx->user = opts ? opts->user : NULL;
    cx->last = 0.0;
    if (cx->progress) cx->progress(cx->user, 0.0);
}

void imp_progress_at(imp_ctx *cx, double done, double total) {
    if (!cx || !cx->progress || !(total > 0)) return;
    double f = done / total;
    if (f > CAP) f = CAP;
    if (!(f >= cx->last + STEP)) return;   /* also refuses NaN */
    cx->last = f;
    cx->progress(cx->user, f);
}

bool imp_progress_active(const imp_ctx *cx) { return cx && cx->progress != NULL; }

void imp_progress_end(imp_ctx *cx, bool ok) {
    if (cx->progress && ok) cx->progress(cx->user, 1.0);
    cx->progress = NULL;
    cx->user = NULL;
}
