/* fnv.h -- the 64-bit FNV-1a hash's two constants (Fowler, Noll, Vo;
 * draft-eastlake-fnv, "FNV-1a": h = (h XOR octet) x prime from the offset
 * basis), one place for every hash table and key that uses them (trace.c's
 * strings, the scenario reader's streams, the SQLite importers' row cache,
 * the id lists' ETags). test_idset.c checks the published vector. */
#ifndef SIMCORE_FNV_H
#define SIMCORE_FNV_H

#include <stdint.h>

#define FNV1A_OFFSET UINT64_C(14695981039346656037)
#define FNV1A_PRIME UINT64_C(1099511628211)

#endif
