/* devices.c -- the GPUs of an imported trace (DESIGN §5: `devices`, one
 * entry per GPU, and a `device` index on every kernel and copy), as the
 * formats that number their GPUs by CUDA ordinal fill them (nvprof-sqlite,
 * nsys-sqlite, nvprof-csv). See formats.h. */
#include "formats.h"

#include <stdio.h>

int imp_devices_reserve(trace *t, int32_t ord) {
    /* ordinal 0 alone is one GPU: no entries (trace.h, trace_device_count) */
    while (ord > 0 && t->devices.n <= (size_t)ord)
        if (trace_add_device(t, &t->device) < 0) return -1;
    return 0;
}

int imp_devices_unlisted(trace *t, uint64_t listed, const char *file, const char *where) {
    char buf[IMP_MAX_GPUS * 4];
    size_t o = 0, n = 0;
    for (size_t i = 0; i < t->devices.n && i < IMP_MAX_GPUS; i++)
        if (!(listed >> i & 1)) {
            o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%zu", o ? ", " : "", i);
            n++;
        }
    if (o == 0) return 0;
    if (trace_set_meta(t, "devices_unlisted", buf) < 0) return -1;
    /* a guess the user should know of: that GPU's SMs, limits and name are
     * the run's device's */
    return imp_warn(t, file, "GPU ordinal%s %s not in %s: %s the run's device (%s)",
                    n > 1 ? "s" : "", buf, where, n > 1 ? "each taken to be" : "taken to be",
                    t->device.name[0] ? t->device.name : "unnamed");
}
