/* sort_records.h -- the stable, in-place sort of trace records by one
 * int64_t key that the importers share (pytorch_json.c, sqlite_util.c):
 * records by start, ties in file / table order, so equal starts stay
 * deterministic. */
#ifndef IMPORTERS_SORT_RECORDS_H
#define IMPORTERS_SORT_RECORDS_H

#include <stddef.h>

/* Sort n records of esz bytes at base by the int64_t at key_off in each,
 * ties in their present order. 0, or -1 when out of memory (the records are
 * then untouched). */
int imp_sort_records(void *base, size_t n, size_t esz, size_t key_off);

#endif
