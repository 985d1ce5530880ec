/* schedlab_trace.h -- the schedlab-trace/1 reader (DESIGN §5), the
 * importer of schedlab's own trace JSON (IMP_SCHEDLAB_TRACE): imp_import
 * reads it like every format; these two are for the callers that hold the
 * text or one device object already (tests, the fuzz harness).
 *
 * It shares its JSON reader (jsonr.h, on jansson) with the scenarios and
 * task sets of server/formats/, which include it from here. */
#ifndef IMPORTERS_SCHEDLAB_TRACE_H
#define IMPORTERS_SCHEDLAB_TRACE_H

#include <jansson.h>
#include <stddef.h>

#include "../simcore/trace.h"
#include "jsonr.h"

/* Parse schedlab-trace/1 text into `out` (trace_init'ed, empty; the caller
 * frees it, also on failure). `file` names the input in messages:
 * "FILE:3:14: JSON: ..." or "FILE: kernels[2].issue: expected an integer or null". */
int imp_trace_json_parse(const char *text, size_t len, const char *file, trace *out, char *err,
                         size_t errlen);

/* Device object (as server/formats/trace_json.c's tj_put_device writes
 * it) into *d; messages go through c at `path` ("trace.json: device.sms: expected a non-negative integer").
 * Missing or null fields are 0 (unknown). Its numeric fields are those of
 * simcore's table (SIM_DEVICE_FIELDS). */
int imp_trace_json_device(jr_ctx *c, json_t *obj, const char *path, sim_device *d);

#endif
