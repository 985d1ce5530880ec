/* device_json.c -- scenario devices: presets, full device objects and SM
 * orders, driven by simcore's device field table. See device_json.h. */
#include "device_json.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "units.h"

int dj_find_preset(jr_ctx *c, const char *name, const char *path, sim_device *out) {
    const sim_device *p = sim_preset_find(name);
    if (p) {
        *out = *p;
        return 0;
    }
    size_t n = sim_preset_count();
    const char *names[64];
    if (n > 64)
        n = 64;
    for (size_t i = 0; i < n; i++)
        names[i] = sim_preset_at(i)->name;
    return jr_fail_unknown(c, path, "preset", name, names, n);
}

/* "ascending", "evens-then-odds" or an explicit array of SM ids. Whether
 * the array is a permutation of the device's SMs is sim_device_validate's
 * to say, once the SM count is final. */
static int parse_sm_order(jr_ctx *c, json_t *v, const char *path, sim_device *dev,
                          bool *explicit_order) {
    char p[JR_PATH_MAX];
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        static const char *const kinds[] = {"ascending", "evens-then-odds"};
        if (strcmp(s, "ascending") == 0)
            dev->sm_order_kind = SIM_SM_ORDER_ASCENDING;
        else if (strcmp(s, "evens-then-odds") == 0)
            dev->sm_order_kind = SIM_SM_ORDER_EVENS_THEN_ODDS;
        else
            return jr_fail_unknown(c, path, "order", s, kinds, 2);
        return 0;
    }
    if (!json_is_array(v))
        return jr_fail(c, path, "must be \"ascending\", \"evens-then-odds\" or an array of SM "
                       "ids, not %s", jr_type_name(v));
    size_t n = json_array_size(v);
    if (n > SIM_MAX_SMS)
        return jr_fail(c, path, "lists %zu SMs; this build handles at most %d", n, SIM_MAX_SMS);
    for (size_t i = 0; i < n; i++) {
        int64_t id;
        if (jr_get_count(c, json_array_get(v, i), jr_index(p, path, i), 0, SIM_MAX_SMS - 1, &id))
            return -1;
        dev->sm_order[i] = (int16_t)id;
    }
    for (size_t i = n; i < SIM_MAX_SMS; i++)
        dev->sm_order[i] = 0;
    dev->sm_order_kind = SIM_SM_ORDER_EXPLICIT;
    *explicit_order = true;
    return 0;
}

/* One numeric field, written as its kind says. */
static int parse_field(jr_ctx *c, json_t *v, const char *path, const sim_device_field *f,
                       sim_device *out) {
    static const units_kind unit_of[] = {
        [SIM_DF_SIZE] = UNITS_SIZE,
        [SIM_DF_BANDWIDTH] = UNITS_BANDWIDTH,
        [SIM_DF_FREQUENCY] = UNITS_FREQUENCY,
    };
    int64_t x;
    if (f->kind == SIM_DF_RATE) {
        /* a number per cycle, fractions allowed (mem_bandwidth: 4.25) */
        if (!json_is_number(v) || !(json_number_value(v) >= 0) || json_number_value(v) > 65536)
            return jr_fail(c, path, "must be a number from 0 to 65536 (per cycle)");
        sim_device_set_f64(out, f, json_number_value(v));
        return 0;
    }
    if (f->kind == SIM_DF_CYCLES) {
        /* a latency: a whole number of cycles, or "260cycles" */
        units_dur d;
        if (json_is_integer(v)) {
            if (jr_get_count(c, v, path, 0, 1000000000, &x))
                return -1;
        } else {
            if (units_parse_dur(c, v, path, &d))
                return -1;
            if (!d.cycles)
                return jr_fail(c, path, "a latency is counted in cycles: write a number or "
                               "\"260cycles\"");
            if (d.v > 1000000000)
                return jr_fail(c, path, "%" PRId64 " cycles is more than 1000000000", d.v);
            x = d.v;
        }
        sim_device_set_i64(out, f, x);
        return 0;
    }
    if (f->kind == SIM_DF_COUNT || f->kind == SIM_DF_OPTION) {
        /* sms sizes the SM order and the block scheduler's arrays */
        bool sms = f->offset == offsetof(sim_device, sms);
        if (jr_get_count(c, v, path, sms ? 1 : 0, sms ? SIM_MAX_SMS : INT32_MAX, &x))
            return -1;
    } else {
        if (units_parse(c, v, path, unit_of[f->kind], &x, NULL))
            return -1;
        if (f->type == SIM_DT_I32 && x > INT32_MAX)
            return jr_fail(c, path, "%" PRId64 " is more than %" PRId32 ", the most this build "
                           "accepts", x, INT32_MAX);
    }
    if (f->type == SIM_DT_F64)
        sim_device_set_f64(out, f, (double)x);
    else
        sim_device_set_i64(out, f, x);
    return 0;
}

/* "preset", "name", every key of the table, "sm_order": NULL-terminated. */
#define DJ_ONE(field, type, kind, key, required, doc) +1
enum { DJ_MAX_KEYS = 3 + (0 SIM_DEVICE_FIELDS(DJ_ONE)) + 1 };
#undef DJ_ONE
static void device_keys(const char *keys[DJ_MAX_KEYS]) {
    size_t k = 0;
    keys[k++] = "preset";
    keys[k++] = "name";
    for (size_t i = 0; i < sim_device_nfields && k < DJ_MAX_KEYS - 2; i++)
        keys[k++] = sim_device_fields[i].key;
    keys[k++] = "sm_order";
    keys[k] = NULL;
}

int dj_parse(jr_ctx *c, json_t *v, const char *path, const sim_device *base, sim_device *out) {
    char p[JR_PATH_MAX];
    if (json_is_string(v))
        return dj_find_preset(c, json_string_value(v), path, out);
    if (!json_is_object(v))
        return jr_fail(c, path, "must be a preset name (such as \"tx2\") or an object, not %s",
                       jr_type_name(v));
    const char *keys[DJ_MAX_KEYS];
    device_keys(keys);
    if (jr_check_keys(c, v, path, keys))
        return -1;

    json_t *preset = json_object_get(v, "preset");
    bool explicit_order = false;
    if (preset) {
        const char *pn = NULL;
        if (jr_get_string(c, preset, jr_join(p, path, "preset"), &pn) ||
            dj_find_preset(c, pn, p, out))
            return -1;
    } else if (base) {
        *out = *base;
    } else {
        for (size_t i = 0; i < sim_device_nfields; i++) {
            const sim_device_field *f = &sim_device_fields[i];
            if (f->required && !json_object_get(v, f->key))
                return jr_fail(c, path, "missing \"%s\" (a device without \"preset\" gives "
                               "every field; or start from a preset: {\"preset\": \"tx2\", "
                               "...})", f->key);
        }
        memset(out, 0, sizeof *out);
        snprintf(out->name, sizeof out->name, "custom");
        out->schedulers_per_sm = 4;
        out->copy_engines = 1;
        out->sm_order_kind = SIM_SM_ORDER_ASCENDING;
    }
    bool was_explicit = out->sm_order_kind == SIM_SM_ORDER_EXPLICIT;

    const char *key;
    json_t *val;
    json_object_foreach(v, key, val) {
        jr_join(p, path, key);
        const sim_device_field *f = sim_device_field_by_key(key);
        if (f) {
            if (parse_field(c, val, p, f, out))
                return -1;
        } else if (strcmp(key, "name") == 0) {
            const char *nm = NULL;
            if (jr_get_name(c, val, p, &nm))
                return -1;
            if (strlen(nm) >= sizeof out->name)
                return jr_fail(c, p, "is longer than %zu characters", sizeof out->name - 1);
            snprintf(out->name, sizeof out->name, "%s", nm);
        } else if (strcmp(key, "sm_order") == 0) {
            if (parse_sm_order(c, val, p, out, &explicit_order))
                return -1;
        }
    }

    if (explicit_order) {
        size_t n = json_array_size(json_object_get(v, "sm_order"));
        if (n != (size_t)out->sms)
            return jr_fail(c, jr_join(p, path, "sm_order"), "lists %zu SMs but the device has %"
                           PRId32, n, out->sms);
    } else if (was_explicit && json_object_get(v, "sms")) {
        return jr_fail(c, jr_join(p, path, "sms"), "the device's sm_order lists SMs explicitly; "
                       "give a new \"sm_order\" with the new SM count");
    } else {
        sim_device_fill_order(out);
    }

    /* the preset's measured wave order (H100-W1, sms.h) names its own SMs:
     * it does not describe a device given another SM count */
    if (out->nwave_order != 0 && out->nwave_order != out->sms) out->nwave_order = 0;

    /* sim_device_validate names fields as "device.X" (an explicit sm_order
     * that is no permutation among them); re-root them at `path` so a
     * variant's message says variants[i].device.X. */
    char msg[256];
    if (sim_device_validate(out, msg, sizeof msg)) {
        if (strncmp(msg, "device.", 7) == 0)
            return jr_fail(c, "", "%s.%s", path, msg + 7);
        return jr_fail(c, path, "%s", msg);
    }
    return 0;
}

json_t *dj_fields_json(void) {
    static const char *const kinds[] = {
        [SIM_DF_COUNT] = "count",
        [SIM_DF_SIZE] = "size",
        [SIM_DF_BANDWIDTH] = "bandwidth",
        [SIM_DF_FREQUENCY] = "frequency",
        [SIM_DF_CYCLES] = "cycles",
        [SIM_DF_RATE] = "rate",
        [SIM_DF_OPTION] = "count",
    };
    json_t *list = json_array();
    for (size_t i = 0; list && i < sim_device_nfields; i++) {
        const sim_device_field *f = &sim_device_fields[i];
        json_t *o = json_pack("{s:s, s:s, s:b, s:s}", "key", f->key, "kind", kinds[f->kind],
                              "required", f->required, "doc", f->doc);
        if (!o || json_array_append_new(list, o)) {
            json_decref(list);
            return NULL;
        }
    }
    return list;
}
