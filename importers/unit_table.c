/* unit_table.c -- the unit names and scales of unit_table.h. */
#include "unit_table.h"

#include <string.h>

#define NS_PER_S INT64_C(1000000000)

const imp_unit imp_time_units[] = {
    {"s", NS_PER_S}, {"ms", 1000000}, {"us", 1000}, {"\xc2\xb5s", 1000}, {"ns", 1}, {NULL, 0}};
const imp_unit imp_size_units[] = {
    {"B", 1}, {"KB", INT64_C(1) << 10}, {"KiB", INT64_C(1) << 10}, {"MB", INT64_C(1) << 20},
    {"MiB", INT64_C(1) << 20}, {"GB", INT64_C(1) << 30}, {"GiB", INT64_C(1) << 30},
    {"TB", INT64_C(1) << 40}, {"TiB", INT64_C(1) << 40}, {NULL, 0}};
const imp_unit imp_freq_units[] = {
    {"Hz", 1}, {"kHz", 1000}, {"KHz", 1000}, {"MHz", 1000000}, {"GHz", NS_PER_S}, {NULL, 0}};

int64_t imp_unit_scale(const imp_unit *table, const char *name) {
    for (const imp_unit *u = table; u->name; u++)
        if (strcmp(name, u->name) == 0) return u->scale;
    return 0;
}
