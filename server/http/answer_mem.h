/* answer_mem.h -- the memory held for answers being sent (issue 31): one
 * count for the whole server, so that no number of slow readers can pin
 * more than the cap. An answer takes its bytes before it is queued and
 * gives them back when libmicrohttpd is done with it (sent, or the client
 * gone); an answer that would pass the cap is refused with 503 and
 * Retry-After instead.
 *
 * What counts: a buffered body of at least AMEM_MIN_BYTES (a window, a big
 * list), and a streamed one's state (the records it keeps in memory, as the
 * handler declares with http_stream_cost, plus two chunks of text). Bodies
 * shared with the answers' cache are the cache's and not counted twice.
 *
 * `serve --answer-memory MIB` sets the cap (default AMEM_DEFAULT_MIB). */
#ifndef SERVER_ANSWER_MEM_H
#define SERVER_ANSWER_MEM_H

#include <stdbool.h>
#include <stddef.h>

#define AMEM_DEFAULT_MIB 256
#define AMEM_MIN_BYTES ((size_t)64 << 10)

/* 0: the default. */
void amem_set_cap(size_t bytes);
size_t amem_cap(void);
/* Take n bytes; false (nothing taken) when the cap would be passed. */
bool amem_take(size_t n);
void amem_give(size_t n);
size_t amem_held(void);

#endif
