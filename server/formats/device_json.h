/* device_json.h -- a scenario's "device" (DESIGN §4) into a sim_device:
 * a preset name, {"preset": "tx2", ...fields overridden}, or a device
 * written out in full; plus the field table as JSON for /api/presets.
 *
 * The numeric fields, their JSON keys, which ones a full device must give
 * and how each is written (a count, a size, a bandwidth, a frequency) come
 * from simcore's SIM_DEVICE_FIELDS table (device.h): a new device field
 * needs no change here. Only "preset", "name" and "sm_order" are handled by
 * name. The finished device goes through sim_device_validate, whose
 * messages are re-rooted at the caller's path ("variants[0].device.sms").
 *
 * Errors go through the caller's jr_ctx (jsonr.h). */
#ifndef SERVER_DEVICE_JSON_H
#define SERVER_DEVICE_JSON_H

#include <jansson.h>

#include "../../simcore/device.h"
#include "../../importers/jsonr.h"

/* Parse `v` at `path` into *out. `base` is where an object without
 * "preset" starts from (the base run's device, for a variant); NULL at the
 * top level, where such an object must give every required field and the
 * rest default: name "custom", schedulers_per_sm 4, copy_engines 1, clock 0
 * (unknown), sm_order "ascending". */
int dj_parse(jr_ctx *c, json_t *v, const char *path, const sim_device *base, sim_device *out);

/* The preset named `name` into *out, or an "unknown preset" error at `path`
 * with a "did you mean" hint. */
int dj_find_preset(jr_ctx *c, const char *name, const char *path, sim_device *out);

/* A new reference to [{"key", "kind", "required", "doc"}, ...], one per
 * field of the table in its order (kind: "count", "size", "bandwidth",
 * "frequency"); NULL on OOM. */
json_t *dj_fields_json(void);

#endif
