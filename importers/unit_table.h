/* unit_table.h -- the one table of unit names and their scales, read by the
 * importers (nvprof's CSV header row of units) and by the server's JSON
 * quantities (server/formats/units.c): durations to ns, sizes to bytes (binary: KB =
 * KiB = 1024, as nvprof's throughput column shows, profiler-trace-formats.md
 * §1.4, and DESIGN §4 for scenarios), frequencies to Hz. Pure data here, in
 * importers/ because the importers may not reach server/ while the server
 * may use the importers. */
#ifndef IMPORTERS_UNIT_TABLE_H
#define IMPORTERS_UNIT_TABLE_H

#include <stdint.h>

typedef struct imp_unit {
    const char *name;            /* "ms", "KiB", "GHz"; NULL ends a table */
    int64_t scale;               /* ns, bytes or Hz per one of it */
} imp_unit;

extern const imp_unit imp_time_units[];   /* s, ms, us (and µs), ns */
extern const imp_unit imp_size_units[];   /* B, KB/KiB ... TB/TiB */
extern const imp_unit imp_freq_units[];   /* Hz, kHz (KHz), MHz, GHz */

/* The scale of unit `name` in `table`, or 0 when it has no such unit. */
int64_t imp_unit_scale(const imp_unit *table, const char *name);

#endif
