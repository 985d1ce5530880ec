/* idset.h -- the id lists of the window routes' filters ("3-7,12": ids and
 * inclusive ranges, commas; "" is the empty set) as a bit set, and the
 * hash that names a set in an ETag. One parser for /occupancy's `kernels`
 * (kernel ids) and /streams' `names` (kernel name indices), so both answer
 * bad lists with the same kind of message (docs/api.md). */
#ifndef SERVER_IDSET_H
#define SERVER_IDSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What the messages call the list's items, e.g. for `kernels`:
 * {"kernels", "a kernel id", "ids", "a kernel"}. */
typedef struct idset_words {
    const char *param;   /* the query parameter */
    const char *item;    /* one item: "a kernel id" */
    const char *items;   /* between commas: "ids" */
    const char *what;    /* what an id names: "a kernel" */
} idset_words;

/* Parse s into bits[0..(n+7)/8) (zeroed by the caller), ids 0..n-1. False
 * with a one-line message in err naming the parameter and the character:
 * a malformed item, a backwards range or an id out of range. */
bool idset_parse(const idset_words *w, const char *s, int64_t n, uint8_t *bits, char *err,
                 size_t errlen);

/* FNV-1a of the set's bytes: the ETag names the set, however it was spelled */
uint64_t idset_hash(const uint8_t *bits, size_t nbytes);

/* The Cache-Control of an answer about a finished run, which never changes */
#define IDSET_IMMUTABLE "public, max-age=31536000, immutable"

#endif
