/* compare_cache -- the kernel table of GET /api/compare, kept by run list
 * (issue 15: the compare view of two 1 M-block runs must draw in < 1 s).
 *
 * The per-kernel rows of a set of runs depend only on the runs' kernels,
 * and a stored run never changes, so their JSON text (the "kernels" array)
 * is built once per run list and served again as it is. The rest of the
 * answer (labels carrying the experiment's name, which an edit may change;
 * task rows whose bounds come from the experiment's scenario) is built
 * fresh every time and is cheap.
 *
 * Keys name each run by slug and creation time, so a deleted run's slug
 * reused by a new run (the compare handler looks each run up first: a
 * deleted one is a 404) never finds the old text. Thread-safe; at most
 * CMPCACHE_ENTRIES entries and CMPCACHE_BYTES bytes, least recently used out
 * first. */
#ifndef SCHEDLAB_COMPARE_CACHE_H
#define SCHEDLAB_COMPARE_CACHE_H

#include <stdbool.h>
#include <stddef.h>

#define CMPCACHE_ENTRIES 16
#define CMPCACHE_BYTES ((size_t)64 << 20)

/* A malloc'd copy of the text stored under `key` in *text (NUL-terminated,
 * *len bytes); false when there is none (or no memory for the copy). */
bool cmpcache_get(const char *key, char **text, size_t *len);
/* Keep a copy of `len` bytes of text under key (replacing an entry of the
 * same key); silently nothing when it is too big or memory is short. */
void cmpcache_put(const char *key, const char *text, size_t len);
/* Bytes of text held now (/api/health's cache_bytes). */
size_t cmpcache_bytes(void);
/* Entries held now (tests). */
size_t cmpcache_count(void);

#endif
