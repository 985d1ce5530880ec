/* test_jsonr.c -- the JSON reader helpers shared by the scenario, trace and
 * taskset readers (importers/jsonr.c), units (server/formats/units.c) and the device
 * object driven by simcore's field table (server/formats/device_json.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../server/formats/device_json.h"
#include "../../importers/jsonr.h"
#include "../../server/formats/trace_json.h"
#include "../../importers/schedlab_trace.h"
#include "../../server/formats/units.h"
#include "../../importers/unit_table.h"

static char err[512];
static jr_ctx ctx(void) {
    err[0] = '\0';
    return (jr_ctx){"in.json", err, sizeof err, ""};
}

static json_t *js(const char *text) {
    json_t *v = json_loads(text, JSON_DECODE_ANY, NULL);
    assert_non_null(v);
    return v;
}

static void test_paths_and_messages(void **state) {
    (void)state;
    char a[JR_PATH_MAX], b[JR_PATH_MAX];
    assert_string_equal(jr_join(b, jr_index(a, "ops", 3), "threads"), "ops[3].threads");
    assert_string_equal(jr_join(a, "", "device"), "device");
    assert_string_equal(jr_index(a, "body", 0), "body[0]");
    assert_string_equal(jr_index(a, "", 18446744073709551615u), "[18446744073709551615]");
    /* a path too long is cut where snprintf cut it: JR_PATH_MAX - 1 bytes */
    char longer[300], want[JR_PATH_MAX];
    memset(longer, 'k', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    memcpy(want, "ops[1].", 7);
    memset(want + 7, 'k', JR_PATH_MAX - 8);
    want[JR_PATH_MAX - 1] = '\0';
    assert_string_equal(jr_join(b, jr_index(a, "ops", 1), longer), want);
    memset(want, 'k', 155);
    memcpy(want + 155, "[123", 5);   /* of "[12345]", the 4 bytes that fit, and the NUL */
    assert_string_equal(jr_index(a, longer + 144, 12345), want);
    jr_ctx c = ctx();
    assert_int_equal(jr_fail(&c, "ops[3]", "bad \"%s\"", "a\nb"), -1);
    assert_string_equal(err, "in.json: ops[3]: bad \"a\\nb\"");
    c.pfx = "variants[0] (\"v\"): ";
    jr_fail(&c, "", "no path");
    assert_string_equal(err, "in.json: variants[0] (\"v\"): no path");
    c = ctx();
    assert_null(jr_load(&c, "{\"a\":1,\n\"a\":2}", 14));
    assert_non_null(strstr(err, "in.json:2:"));
    /* a UTF-8 byte order mark (a Windows editor's), which jansson's own
     * message quoted invisibly ("'[' or '{' expected near '\xef\xbb\xbf'") */
    c = ctx();
    assert_null(jr_load(&c, "\xef\xbb\xbf{\"a\":1}", 10));
    assert_string_equal(err, "in.json:1:1: JSON: the text begins with a byte order mark (EF BB BF), "
                        "which RFC 8259 \u00a78.1 says JSON text is not to be sent with; save it as "
                        "UTF-8 without one");
    jr_ctx quiet = {"x", NULL, 0, NULL};
    assert_int_equal(jr_fail(&quiet, "p", "dropped"), -1);
}

/* "known: ..." lists every name, whole: a device object's unknown key
 * lists all its keys (docs/scenario-format.md "Device": the preset, name,
 * every field of simcore's table, sm_order), which once ended half-way
 * through "mem_admission" ("..., copies_in_flight, m)"), the list's 512
 * bytes spent; a list that cannot fit ends with ", \u2026", never half a
 * name. */
static void test_known_list_whole(void **state) {
    (void)state;
    char big[2048];
    jr_ctx c = {"in.json", big, sizeof big, ""};
    json_t *o = js("{\"preset\":\"tx2\",\"zzzzzzzzzzzzz\":1}");
    sim_device d;
    assert_int_equal(dj_parse(&c, o, "device", NULL, &d), -1);
    json_decref(o);
    char want[2048];
    int n = snprintf(want, sizeof want,
                     "in.json: device: unknown key \"zzzzzzzzzzzzz\" (known: preset, name");
    for (size_t i = 0; i < sim_device_nfields; i++)
        n += snprintf(want + n, sizeof want - (size_t)n, ", %s", sim_device_fields[i].key);
    snprintf(want + n, sizeof want - (size_t)n, ", sm_order)");
    assert_string_equal(big, want);

    static const char *const names[] = {"alpha", "beta", "gamma"};
    char buf[20];
    jr_list_names(buf, sizeof buf, names, 3, "");
    assert_string_equal(buf, "alpha, beta, gamma");
    jr_list_names(buf, 17, names, 3, "");
    assert_string_equal(buf, "alpha, beta, \u2026");
    /* ", beta" and the mark after it take 16 bytes, the NUL a 17th */
    jr_list_names(buf, 16, names, 3, "");
    assert_string_equal(buf, "alpha, \u2026");
    jr_list_names(buf, 13, names, 3, "\"");
    assert_string_equal(buf, "\"alpha\", \u2026");
    jr_list_names(buf, 6, names, 3, "");
    assert_string_equal(buf, "\u2026");
}

/* Every unit a scenario's quantity takes is in docs/scenario-format.md's
 * "Quantities and units" table, as `NAME` (the table says what a string
 * may hold; "cycle" and "KHz" were read but not written there). Read from
 * the checkout's docs (the tests run at its root). */
static void test_units_documented(void **state) {
    (void)state;
    FILE *f = fopen("docs/scenario-format.md", "r");
    assert_non_null(f);
    static char doc[1 << 17];
    size_t n = fread(doc, 1, sizeof doc - 1, f);
    fclose(f);
    doc[n] = '\0';
    char *from = strstr(doc, "\n| kind | base unit of a plain number | units in strings |");
    assert_non_null(from);
    char *to = strstr(from, "\n\n");
    assert_non_null(to);
    *to = '\0';
    const imp_unit *tables[] = {imp_time_units, imp_size_units, imp_freq_units};
    for (size_t t = 0; t < 3; t++)
        for (const imp_unit *u = tables[t]; u->name; u++) {
            char want[32];
            snprintf(want, sizeof want, "`%s`", u->name);
            if (!strstr(from, want))
                fail_msg("docs/scenario-format.md's units table lacks %s", want);
        }
    /* and the cycles, read beside the time units (units.c) */
    jr_ctx c = ctx();
    json_t *v = js("\"13cycle\"");
    int64_t x;
    bool cyc;
    assert_int_equal(units_parse(&c, v, "at", UNITS_DURATION, &x, &cyc), 0);
    assert_true(cyc);
    json_decref(v);
    assert_non_null(strstr(from, "`cycles`"));
    assert_non_null(strstr(from, "`cycle`"));
}

static void test_keys_and_getters(void **state) {
    (void)state;
    static const char *const known[] = {"threads", "blocks", "block_time", NULL};
    assert_string_equal(jr_suggest("thread", known, 3), "threads");
    assert_null(jr_suggest("zzzzzz", known, 3));
    /* every letter changed is no typo ("C" is not "A" mistyped); names
     * past 64 bytes are not compared (edit_distance's rows) */
    static const char *const letters[] = {"A", "ab"};
    assert_null(jr_suggest("C", letters, 2));
    assert_string_equal(jr_suggest("cb", letters, 2), "ab");
    char w64[65], w65[66];
    memset(w64, 'a', 64), w64[64] = '\0';
    memset(w65, 'a', 65), w65[65] = '\0';
    const char *const longer[] = {w65};
    assert_null(jr_suggest(w64, longer, 1));
    const char *const same[] = {w64};
    assert_string_equal(jr_suggest(w64, same, 1), w64);
    json_t *o = js("{\"threads\":1,\"Blocks\":2}");
    jr_ctx c = ctx();
    assert_int_equal(jr_check_keys(&c, o, "ops[0]", known), -1);
    assert_string_equal(err, "in.json: ops[0]: unknown key \"Blocks\" (did you mean \"blocks\"?)");
    json_decref(o);
    o = js("{\"zzzzzz\":1}");
    jr_check_keys(&c, o, "", known);
    assert_string_equal(err, "in.json: unknown key \"zzzzzz\" (known: threads, blocks, block_time)");
    json_decref(o);

    int64_t x;
    json_t *v = js("1e3");
    assert_int_equal(jr_get_count(&c, v, "n", 0, 5000, &x), 0);
    assert_int_equal(x, 1000);
    assert_int_equal(jr_get_count(&c, v, "n", 0, 10, &x), -1);
    assert_string_equal(err, "in.json: n: 1000 is more than 10, the most this build accepts");
    json_decref(v);
    v = js("1.5");
    jr_get_whole(&c, v, "n", &x);
    assert_string_equal(err, "in.json: n: 1.5 is not a whole number");
    json_decref(v);
    /* whole numbers past int64 are refused for their size, not as fractions */
    v = js("1e20");
    assert_int_equal(jr_get_whole(&c, v, "n", &x), -1);
    assert_string_equal(err, "in.json: n: 1e+20 is larger than this build reads (9e18)");
    assert_int_equal(jr_get_count(&c, v, "n", 1, 1 << 20, &x), -1);
    assert_string_equal(err, "in.json: n: 1e+20 is more than 1048576, the most this build accepts");
    json_decref(v);
    v = js("-1e300");
    assert_int_equal(jr_get_whole(&c, v, "n", &x), -1);
    assert_string_equal(err, "in.json: n: -1e+300 is smaller than this build reads (-9e18)");
    assert_int_equal(jr_get_count(&c, v, "n", 0, 10, &x), -1);
    assert_string_equal(err, "in.json: n: -1e+300 must be at least 0");
    json_decref(v);
    v = js("\"\"");
    const char *s;
    assert_int_equal(jr_get_string(&c, v, "s", &s), 0);
    assert_int_equal(jr_get_name(&c, v, "s", &s), -1);
    assert_string_equal(err, "in.json: s: must not be empty");
    json_decref(v);
    o = js("{\"a\":null,\"b\":[]}");
    assert_null(jr_opt(o, "a"));
    assert_null(jr_opt(o, "c"));
    assert_int_equal(jr_need_array(&c, jr_opt(o, "b"), "b"), 0);
    assert_int_equal(jr_need_object(&c, jr_opt(o, "b"), "b"), -1);
    assert_string_equal(err, "in.json: b: must be an object, not an array");
    json_decref(o);
}

static int64_t qty(const char *text, units_kind k) {
    json_t *v = js(text);
    jr_ctx c = ctx();
    int64_t x = -1;
    bool cyc = false;
    if (units_parse(&c, v, "q", k, &x, k == UNITS_DURATION ? &cyc : NULL)) x = -1;
    json_decref(v);
    return cyc ? -1000 - x : x;
}

static void test_units(void **state) {
    (void)state;
    assert_int_equal(qty("\"0.2s\"", UNITS_DURATION), 200000000);
    assert_int_equal(qty("\"1.5ms\"", UNITS_DURATION), 1500000);
    assert_int_equal(qty("\"13cycles\"", UNITS_DURATION), -1013);
    assert_int_equal(qty("\"48KiB\"", UNITS_SIZE), 49152);
    assert_int_equal(qty("\"48KB\"", UNITS_SIZE), 49152);
    assert_int_equal(qty("\"12.5GB/s\"", UNITS_BANDWIDTH), INT64_C(13421772800));
    /* binary prefixes: 25.6 x 2^30 is not a whole number of bytes */
    assert_int_equal(qty("\"25.6GB/s\"", UNITS_BANDWIDTH), -1);
    assert_int_equal(qty("\"1.3GHz\"", UNITS_FREQUENCY), INT64_C(1300000000));
    assert_int_equal(qty("\"1.5ns\"", UNITS_DURATION), -1);
    assert_string_equal(err, "in.json: q: \"1.5ns\" is not a whole number of nanoseconds");
    assert_int_equal(qty("\"1.3 GHz/s\"", UNITS_FREQUENCY), -1);
    /* an exponent in a string: said so (before: 'has an unknown unit "e3ns"');
     * docs/scenario-format.md: a string is "a number and a unit" */
    assert_int_equal(qty("\"1e3ns\"", UNITS_DURATION), -1);
    assert_string_equal(err, "in.json: q: \"1e3ns\": a quantity string takes no exponent (write out "
                        "its digits, or give a plain number of nanoseconds)");
    assert_int_equal(qty("\"2.5E-3 s\"", UNITS_DURATION), -1);
    assert_non_null(strstr(err, "takes no exponent"));
    assert_int_equal(qty("\"64E+1KB\"", UNITS_SIZE), -1);
    assert_non_null(strstr(err, "a plain number of bytes"));
    assert_int_equal(qty("\"5 eggs\"", UNITS_DURATION), -1);   /* a unit, unknown */
    assert_string_equal(err, "in.json: q: \"5 eggs\" has an unknown unit \"eggs\" (s, ms, us, ns or "
                        "cycles)");

    int64_t out;
    bool inexact;
    assert_int_equal(units_scale_exact(15, 1000, 10, &out, &inexact), 0);
    assert_int_equal(out, 1500);
    assert_int_equal(units_scale_exact(15, 1, 10, &out, &inexact), -1);
    assert_true(inexact);
    assert_int_equal(units_scale_exact(INT64_MAX, 2, 1, &out, &inexact), -1);
    assert_false(inexact);

    sim_device d = *sim_preset_find("tx2");
    jr_ctx c = ctx();
    int64_t ns;
    assert_int_equal(units_resolve(&c, (units_dur){13, true}, &d, "p", &ns), 0);
    assert_int_equal(ns, 10);   /* 13 cycles at 1.3 GHz */
    d.clock_hz = 0;
    assert_int_equal(units_resolve(&c, (units_dur){13, true}, &d, "p", &ns), -1);
    char b[32];
    /* docs/scenario-format.md Units: cycles become "the nearest
     * nanosecond": "1cycles" at the TX2's 1.3 GHz is 1 ns, not 0
     * (mutant: units-cycles-truncate) */
    d.clock_hz = sim_preset_find("tx2")->clock_hz;
    assert_int_equal(units_resolve(&c, (units_dur){1, true}, &d, "p", &ns), 0);
    assert_int_equal(ns, 1);
    /* "Negative quantities are errors", a plain integer's too
     * (mutant: units-negative-int) */
    assert_int_equal(qty("-1", UNITS_DURATION), -1);
    assert_string_equal(err, "in.json: q: -1 must not be negative");
    /* a duration of exactly 10^6 s is the longest accepted, one second
     * more is refused (units.h UNITS_MAX_DURATION; mutant:
     * units-dur-cap-edge) */
    units_dur u;
    json_t *v = js("\"1000000s\"");
    assert_int_equal(units_parse_dur(&c, v, "q", &u), 0);
    assert_int_equal(u.v, UNITS_MAX_DURATION);
    json_decref(v);
    v = js("\"1000001s\"");
    assert_int_equal(units_parse_dur(&c, v, "q", &u), -1);
    assert_string_equal(err, "in.json: q: the duration is longer than this build accepts "
                        "(1000000s)");
    json_decref(v);
    /* a lone point is no number at all: said so, not "needs digits after
     * it", which tells the user to add digits to a number they never wrote
     * (mutant: units-leading-dot) */
    assert_int_equal(qty("\".ms\"", UNITS_DURATION), -1);
    assert_string_equal(err, "in.json: q: \".ms\" is not a quantity (write a number and a unit: "
                        "s, ms, us, ns or cycles)");
    assert_int_equal(qty("\"5.ms\"", UNITS_DURATION), -1);
    assert_string_equal(err, "in.json: q: \"5.ms\": a decimal point needs digits after it");
    assert_string_equal(units_fmt_ns(b, sizeof b, 40000), "40us");
    assert_string_equal(units_fmt_ns(b, sizeof b, 7), "7ns");
}

/* A device written out in full needs exactly the table's required keys. */
static void test_device_from_table(void **state) {
    (void)state;
    const sim_device *tx2 = sim_preset_find("tx2");
    json_t *o = json_object();
    for (size_t i = 0; i < sim_device_nfields; i++) {
        const sim_device_field *f = &sim_device_fields[i];
        if (!f->required) continue;
        if (f->type == SIM_DT_F64)
            json_object_set_new(o, f->key, json_real(sim_device_get_f64(tx2, f)));
        else
            json_object_set_new(o, f->key, json_integer(sim_device_get_i64(tx2, f)));
    }
    jr_ctx c = ctx();
    sim_device d;
    if (dj_parse(&c, o, "device", NULL, &d)) fail_msg("%s", err);
    assert_string_equal(d.name, "custom");
    assert_int_equal(d.schedulers_per_sm, 4);
    assert_int_equal(d.copy_engines, 1);
    assert_int_equal(d.smem_per_sm, tx2->smem_per_sm);
    assert_true(d.copy_bandwidth == tx2->copy_bandwidth);
    json_object_del(o, "warp_size");
    assert_int_equal(dj_parse(&c, o, "device", NULL, &d), -1);
    assert_non_null(strstr(err, "in.json: device: missing \"warp_size\""));
    json_decref(o);

    /* the explicit order is checked by simcore, re-rooted at the path */
    o = js("{\"preset\":\"tx2\",\"sm_order\":[1,1]}");
    assert_int_equal(dj_parse(&c, o, "variants[0].device", tx2, &d), -1);
    assert_string_equal(err, "in.json: variants[0].device.sm_order[1]: SM 1 appears twice; "
                        "the order must list every SM once");
    json_decref(o);

    /* the trace JSON writer and reader agree through the same table */
    json_t *w = tj_device_json(tx2);
    assert_non_null(w);
    assert_int_equal(imp_trace_json_device(&c, w, "device", &d), 0);
    /* but for the preset-only fields, which are no trace field (device.h):
     * the TX2's priority range */
    sim_device want = *tx2;
    want.greatest_priority = 0;
    assert_memory_equal(&d, &want, sizeof d);
    json_object_set_new(w, "clock", json_string("1GHz"));
    assert_int_equal(imp_trace_json_device(&c, w, "device", &d), -1);
    assert_string_equal(err, "in.json: device.clock: expected a non-negative integer");
    json_decref(w);

    json_t *fields = dj_fields_json();
    assert_int_equal(json_array_size(fields), sim_device_nfields);
    json_t *f0 = json_array_get(fields, 0);
    assert_string_equal(json_string_value(json_object_get(f0, "key")), sim_device_fields[0].key);
    json_decref(fields);
}

/* A folder's *.json files, sorted, without hidden ones or other files
 * (the scenarios, the kernel library, the sweeps folder); a folder that
 * is not there is -1 with its errno. */
static void test_json_files(void **state) {
    (void)state;
    const char *tmp = getenv("TMPDIR");
    char dir[512], path[600];
    snprintf(dir, sizeof dir, "%s/jr-files-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    assert_non_null(mkdtemp(dir));
    /* made in an order that is not the sorted one either way round (a
     * folder lists its files in its own order: tmpfs newest first) */
    const char *files[] = {"a.json", ".hidden.json", "Z.json", "c.txt", ".json", "x.json.bak", "b.json"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fclose(f);
    }
    char **names;
    size_t n;
    assert_int_equal(jr_json_files(dir, &names, &n), 0);
    assert_int_equal(n, 3);
    assert_string_equal(names[0], "Z.json");
    assert_string_equal(names[1], "a.json");
    assert_string_equal(names[2], "b.json");
    jr_free_names(names, n);
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
    errno = 0;
    assert_int_equal(jr_json_files(dir, &names, &n), -1);
    assert_int_equal(errno, ENOENT);
    assert_null(names);
    assert_int_equal(n, 0);
    assert_int_equal(jr_json_files(NULL, &names, &n), -1);
}


/* Each kind of device field within its bounds, and the error that names
 * the place and the problem past them (docs/scenario-format.md, "device"):
 * a rate is a number per cycle from 0 to 65536; a latency a whole number
 * of cycles (or "260cycles") up to 10^9; sms from 1 to SIM_MAX_SMS; an
 * explicit sm_order lists every SM (a variant that changes sms must give a
 * new one); a preset's measured wave order (H100-W1) is dropped for
 * another SM count. */
static void device_err(const char *text, const sim_device *base, const char *want) {
    jr_ctx c = ctx();
    json_t *o = js(text);
    sim_device d;
    assert_int_equal(dj_parse(&c, o, "device", base, &d), -1);
    if (strcmp(err, want) != 0) fail_msg("%s: \"%s\", not \"%s\"", text, err, want);
    json_decref(o);
}

static sim_device device_ok(const char *text, const sim_device *base) {
    jr_ctx c = ctx();
    json_t *o = js(text);
    sim_device d;
    if (dj_parse(&c, o, "device", base, &d)) fail_msg("%s: %s", text, err);
    json_decref(o);
    return d;
}

static void test_device_bounds(void **state) {
    (void)state;
    sim_device d = device_ok("{\"preset\":\"tx2\",\"mem_bandwidth\":65536,\"fp32_rate\":0}", NULL);
    assert_true(d.mem_bandwidth == 65536 && d.fp32_rate == 0);
    static const char rate[] = "in.json: device.mem_bandwidth: must be a number from 0 to 65536 "
                               "(per cycle)";
    device_err("{\"preset\":\"tx2\",\"mem_bandwidth\":65536.5}", NULL, rate);
    device_err("{\"preset\":\"tx2\",\"mem_bandwidth\":-0.5}", NULL, rate);
    device_err("{\"preset\":\"tx2\",\"mem_bandwidth\":\"4\"}", NULL, rate);

    d = device_ok("{\"preset\":\"tx2\",\"latency_mem\":\"260cycles\",\"latency_alu\":1000000000}",
                  NULL);
    assert_int_equal(d.latency_mem, 260);
    assert_int_equal(d.latency_alu, 1000000000);
    device_err("{\"preset\":\"tx2\",\"latency_mem\":\"260ns\"}", NULL,
               "in.json: device.latency_mem: a latency is counted in cycles: write a number or "
               "\"260cycles\"");
    device_err("{\"preset\":\"tx2\",\"latency_mem\":\"1000000001cycles\"}", NULL,
               "in.json: device.latency_mem: 1000000001 cycles is more than 1000000000");

    d = device_ok("{\"preset\":\"tx2\",\"sms\":256}", NULL);
    assert_int_equal(d.sms, SIM_MAX_SMS);
    device_err("{\"preset\":\"tx2\",\"sms\":257}", NULL,
               "in.json: device.sms: 257 is more than 256, the most this build accepts");
    device_err("{\"preset\":\"tx2\",\"sms\":0}", NULL, "in.json: device.sms: 0 must be at least 1");

    /* explicit orders */
    d = device_ok("{\"preset\":\"tx2\",\"sm_order\":[1,0]}", NULL);
    assert_int_equal(d.sm_order_kind, SIM_SM_ORDER_EXPLICIT);
    assert_true(d.sm_order[0] == 1 && d.sm_order[1] == 0);
    device_err("{\"preset\":\"tx2\",\"sm_order\":[0]}", NULL,
               "in.json: device.sm_order: lists 1 SMs but the device has 2");
    device_err("{\"preset\":\"tx2\",\"sm_order\":[0,1,2]}", NULL,
               "in.json: device.sm_order: lists 3 SMs but the device has 2");
    char big[8 * (SIM_MAX_SMS + 1) + 64];
    size_t n = (size_t)snprintf(big, sizeof big, "{\"preset\":\"tx2\",\"sm_order\":[0");
    for (int i = 1; i <= SIM_MAX_SMS; i++) n += (size_t)snprintf(big + n, sizeof big - n, ",%d", i % 2);
    snprintf(big + n, sizeof big - n, "]}");
    device_err(big, NULL, "in.json: device.sm_order: lists 257 SMs; this build handles at most 256");
    /* a variant of a device with an explicit order that changes its SMs */
    sim_device base = device_ok("{\"preset\":\"tx2\",\"sm_order\":[1,0]}", NULL);
    device_err("{\"sms\":3}", &base,
               "in.json: device.sms: the device's sm_order lists SMs explicitly; give a new "
               "\"sm_order\" with the new SM count");
    d = device_ok("{\"sms\":3,\"sm_order\":[2,0,1]}", &base);
    assert_true(d.sms == 3 && d.sm_order[0] == 2 && d.sm_order[2] == 1);

    /* the H100's measured wave order holds for its own 132 SMs only */
    d = device_ok("{\"preset\":\"h100\"}", NULL);
    assert_int_equal(d.nwave_order, 132);
    n = (size_t)snprintf(big, sizeof big, "{\"preset\":\"h100\",\"sms\":66,\"sm_order\":[0");
    for (int i = 1; i < 66; i++) n += (size_t)snprintf(big + n, sizeof big - n, ",%d", i);
    snprintf(big + n, sizeof big - n, "]}");
    d = device_ok(big, NULL);
    assert_int_equal(d.nwave_order, 0);
}

/* A file of `max` bytes is read whole, one of max + 1 refused (jsonr.h:
 * "refused past max bytes"), at a size past the first read's 64 KB. */
static void test_read_file_edges(void **state) {
    (void)state;
    const char *tmp = getenv("TMPDIR");
    char path[512], e[256];
    snprintf(path, sizeof path, "%s/jr-read-%d.json", tmp && *tmp ? tmp : "/tmp", (int)getpid());
    const size_t max = 1u << 20;
    for (size_t size = max - 1; size <= max + 1; size++) {
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        for (size_t i = 0; i < size; i++) fputc(i % 61 ? ' ' : '\n', f);
        fclose(f);
        size_t len = 0;
        char *text = jr_read_file(path, max, "sweep spec", &len, e, sizeof e);
        if (size <= max) {
            if (!text) fail_msg("%zu bytes: %s", size, e);
            assert_int_equal(len, size);
            assert_int_equal(text[len], '\0');
            assert_int_equal(text[60], ' ');
            assert_int_equal(text[61], '\n');
            free(text);
        } else {
            assert_null(text);
            char want[600];
            snprintf(want, sizeof want, "%s: larger than 1 MB; not a sweep spec", path);
            assert_string_equal(e, want);
        }
    }
    /* a small limit: the whole file or nothing */
    size_t len;
    char *text = jr_read_file(path, 10, "kernel", &len, e, sizeof e);
    assert_null(text);
    unlink(path);
    assert_null(jr_read_file(path, 10, "kernel", &len, e, sizeof e));
    assert_non_null(strstr(e, ": cannot open: No such file or directory"));
    assert_string_equal(jr_path_name("-"), "stdin");
    assert_string_equal(jr_path_name("a.json"), "a.json");
}

/* One printable line (jsonr.h): control characters and DEL escaped, a
 * byte as two hex digits, high first; an error column of 0 (jansson's,
 * after a newline) is column 1; a type named as the message names it; a
 * line written ends in a newline; a whole number below int64 refused for
 * its size, as the one above it. */
static void test_messages_exact(void **state) {
    (void)state;
    char m[64] = "a\x1b\x7f" "b\tc\rd\ne";
    jr_one_line(m, sizeof m);
    assert_string_equal(m, "a\\x1b\\x7fb\\tc\\rd\\ne");
    jr_ctx c = ctx();
    assert_null(jr_load(&c, "{\"a\": 1\n", 8));
    assert_non_null(strstr(err, "in.json:2:1: JSON: "));
    json_t *v = js("1.5");
    assert_int_equal(jr_need_object(&c, v, "x"), -1);
    assert_string_equal(err, "in.json: x: must be an object, not a number");
    json_decref(v);
    v = js("[1, {\"a\": 2}]");
    char *line = jr_dumps_line(v, JSON_COMPACT);
    assert_string_equal(line, "[1,{\"a\":2}]\n");
    free(line);
    json_decref(v);
    int64_t x;
    v = js("-1e19");
    assert_int_equal(jr_get_count(&c, v, "n", 1, 10, &x), -1);
    assert_string_equal(err, "in.json: n: -1e+19 must be at least 1");
    json_decref(v);
    /* a key of exactly JR_PATH_MAX bytes: cut to JR_PATH_MAX - 1, as
     * snprintf cuts */
    char key[JR_PATH_MAX + 1], buf[JR_PATH_MAX + 8];
    memset(key, 'q', JR_PATH_MAX);
    key[JR_PATH_MAX] = '\0';
    memset(buf, 'x', sizeof buf);
    assert_int_equal(strlen(jr_join(buf, "", key)), JR_PATH_MAX - 1);
    assert_int_equal(buf[JR_PATH_MAX], 'x');
}

/* "[{},{},...]" of n objects, NUL-terminated (malloc'ed) */
static char *objects(size_t n, size_t *len) {
    char *t = malloc(3 * n + 2);
    size_t k = 0;
    t[k++] = '[';
    for (size_t i = 0; i < n; i++) {
        if (i) t[k++] = ',';
        t[k++] = '{';
        t[k++] = '}';
    }
    t[k++] = ']';
    t[k] = '\0';
    *len = k;
    return t;
}

/* The parse budget (jsonr.h, issue 31): JR_PARSE_FACTOR times the text
 * plus JR_PARSE_FLOOR, never past JR_PARSE_MAX (a length whose product
 * would wrap takes the cap); what a parse frees is taken off; the peak is
 * the most held at once. The sizes held below are glibc's: jsonr.c counts
 * a block at malloc_usable_size where the C library is glibc, at the size
 * asked for elsewhere (16 bytes of header either way); Debian, the
 * supported platform, is glibc. */
static void test_parse_budget(void **state) {
    (void)state;
    jr_ctx c = ctx();
    size_t len, used;
    char *t = objects(20000, &len);   /* 60 KB, some 80 times that held */
    /* a claimed length whose 16 times plus 16 MiB wraps to 1 KiB */
    jr_budget_begin((((size_t)1 << 60) - ((size_t)1 << 20)) + 64);
    json_t *v = jr_load_value(&c, t, len, &used);
    jr_budget_end();
    if (!v) fail_msg("%s", err);
    assert_false(jr_over_budget());
    json_decref(v);
    /* the same text parsed 8 times over in one budget, each tree freed: the
     * budget (16 x 60 KB + 16 MiB) holds one tree at a time */
    jr_budget_begin(len);
    size_t peak_one = 0;
    for (int i = 0; i < 8; i++) {
        v = jr_load_value(&c, t, len, &used);
        if (!v) fail_msg("parse %d: %s", i, err);
        if (i == 0) peak_one = jr_budget_peak();
        json_decref(v);
    }
    json_t *small = json_integer(1);   /* allocated after the frees */
    jr_budget_end();
    json_decref(small);
    assert_false(jr_over_budget());
    assert_true(peak_one > 40 * len);           /* ~80 bytes a "{}" */
    assert_true(jr_budget_peak() >= peak_one);  /* the peak, not the last */
    assert_true(jr_budget_peak() < 2 * peak_one);
    free(t);
    /* a text whose tree needs more than it plus the floor but less than 16
     * times it plus the floor is read: 100,000 "{}" (~250 bytes each held,
     * 25 MB) and a string of 1 MB (held once), 1.3 MB of text: under
     * 16 x 1.3 MB + 16 MiB = 37.5 MB, past 1.3 MB + 16 MiB */
    char *o = objects(100000, &len);
    const size_t sl = 1u << 20;
    t = malloc(len + sl + 8);
    memcpy(t, o, len - 1);   /* without its ']' */
    size_t k = len - 1;
    t[k++] = ',';
    t[k++] = '"';
    memset(t + k, 's', sl);
    k += sl;
    t[k++] = '"';
    t[k++] = ']';
    free(o);
    c = ctx();
    jr_budget_begin(k);
    v = jr_load_value(&c, t, k, &used);
    jr_budget_end();
    if (!v) fail_msg("%s", err);
    assert_true(jr_budget_peak() > k + JR_PARSE_FLOOR);
    assert_true(jr_budget_peak() < JR_PARSE_FACTOR * k + JR_PARSE_FLOOR);
    json_decref(v);
    free(t);
    t = objects(400000, &len);   /* 1.2 MB: ~96 MB, past 16 x 1.2 MB + 16 MiB */
    assert_null(jr_load(&c, t, len));
    assert_true(jr_over_budget());
    assert_non_null(strstr(err, "in.json: JSON: the document needs more than 34 MiB of memory to "
                                "read (16 times its 1200001 bytes plus 16 MiB, at most 512 MiB); "
                                "refused"));
    free(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paths_and_messages),
        cmocka_unit_test(test_json_files),
        cmocka_unit_test(test_keys_and_getters),
        cmocka_unit_test(test_known_list_whole),
        cmocka_unit_test(test_units_documented),
        cmocka_unit_test(test_units),
        cmocka_unit_test(test_device_from_table),
        cmocka_unit_test(test_device_bounds),
        cmocka_unit_test(test_read_file_edges),
        cmocka_unit_test(test_messages_exact),
        cmocka_unit_test(test_parse_budget),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
