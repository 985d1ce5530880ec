/* pause_index.h -- the pauses of the blocks in one window of a run, looked
 * up by block, for GET /api/runs/{run}/blocks: each block that was paused
 * (its GPU context switched out: simcore/trace.h, trace_pause) carries
 * "pauses": [[start, end], ...] in the order they began. Blocks are keyed by
 * (kernel, index), which names one block in a simulated run.
 *
 * Memory: pause_index_load allocates; pause_index_free releases. */
#ifndef SERVER_PAUSE_INDEX_H
#define SERVER_PAUSE_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "../../db/db.h"
#include "../../simcore/trace.h"
#include "../formats/trace_json.h"

typedef struct pause_index pause_index;

/* The pauses of the blocks db_blocks_window gives for [from, to). 0, or the
 * db error code with the message in err; *out is NULL when there are none. */
int pause_index_load(db *d, const char *run, int64_t from, int64_t to, pause_index **out,
                     char *err, size_t errlen);
/* The block as the trace JSON writes it (tj_put_block), plus its "pauses"
 * when it has any (idx may be NULL). */
void pause_index_put_block(const pause_index *idx, tj_buf *b, const trace_block *blk);
void pause_index_free(pause_index *idx);

#endif
