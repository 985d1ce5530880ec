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

/* how often (in calls of imp_progress_at) cancelled is asked */
#define CANCEL_EVERY 1024u

void imp_progress_begin(imp_ctx *cx, const imp_options *opts) {
    cx->progress = opts ? opts->progress : NULL;
    cx->user = opts ? opts->user : NULL;
    cx->cancelled = opts ? opts->cancelled : NULL;
    cx->calls = 0;
    cx->stop = false;
    cx->last = 0.0;
    if (cx->progress) cx->progress(cx->user, 0.0);
}

bool imp_progress_at(imp_ctx *cx, double done, double total) {
    if (!cx) return true;
    if (cx->stop) return false;
    /* cancelled is asked every CANCEL_EVERY calls and at every report (a
     * format that calls rarely, every 4,096 events, still asks each 1 %) */
    bool ask = cx->cancelled && ++cx->calls % CANCEL_EVERY == 0;
    if (cx->progress && total > 0) {
        double f = done / total;
        if (f > CAP) f = CAP;
        if (f >= cx->last + STEP) {   /* also refuses NaN */
            cx->last = f;
            cx->progress(cx->user, f);
            ask = cx->cancelled != NULL;
        }
    }
    if (ask && cx->cancelled(cx->user)) cx->stop = true;
    return !cx->stop;
}

bool imp_cancel_now(imp_ctx *cx) {
    if (cx && !cx->stop && cx->cancelled && cx->cancelled(cx->user)) cx->stop = true;
    return cx && cx->stop;
}

bool imp_progress_active(const imp_ctx *cx) { return cx && cx->progress != NULL; }

void imp_progress_end(imp_ctx *cx, bool ok) {
    if (cx->progress && ok) cx->progress(cx->user, 1.0);
    cx->progress = NULL;
    cx->user = NULL;
    cx->cancelled = NULL;
}
