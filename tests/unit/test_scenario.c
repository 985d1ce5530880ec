/* test_scenario.c -- the schedlab-scenario/1 parser (server/formats/scenario.c):
 * units, exactness, did-you-mean hints, the exact error lines, variants,
 * presets with overrides and the SM order forms. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../server/formats/kernlib.h"
#include "../../server/formats/scenario.h"

/* Scenarios are written with ' for " so they stay readable here. */
static char *jq(const char *src) {
    char *s = strdup(src);
    assert_non_null(s);
    for (char *p = s; *p; p++)
        if (*p == '\'')
            *p = '"';
    return s;
}

static int parse(const char *src, scn_scenario **out, char *err, size_t errlen) {
    char *json = jq(src);
    int rc = scn_parse(json, strlen(json), "t.json", out, err, errlen);
    free(json);
    return rc;
}

static scn_scenario *parse_ok(const char *src) {
    char err[512] = "";
    scn_scenario *s = NULL;
    if (parse(src, &s, err, sizeof err) != 0)
        fail_msg("unexpected parse error: %s", err);
    assert_non_null(s);
    return s;
}

static void expect_error(const char *src, const char *want) {
    char err[512] = "";
    scn_scenario *s = (scn_scenario *)&err;   /* must be reset to NULL */
    int rc = parse(src, &s, err, sizeof err);
    if (rc == 0)
        scn_free(s);
    assert_int_equal(rc, -1);
    assert_null(s);
    assert_string_equal(err, want);
}

/* parse_ok with the shipped kernel library (scenarios/kernels, under
 * $SCHEDLAB_ROOT when set) loaded for "program": NAME. */
static void parse_ok_with_library(const char *src) {
    const char *root = getenv("SCHEDLAB_ROOT");
    char dir[1024], err[512];
    snprintf(dir, sizeof dir, "%s%sscenarios/kernels", root ? root : "", root ? "/" : "");
    if (kl_open(dir, err, sizeof err))
        fail_msg("%s", err);
    scn_free(parse_ok(src));
    kl_close();
}

/* A one-kernel scenario on the TX2 whose kernel takes `kernel_tail`. */
static char *one_kernel(const char *device, const char *kernel_tail) {
    static char buf[2048];
    snprintf(buf, sizeof buf,
             "{'schema':'schedlab-scenario/1','device':%s,"
             "'ops':[{'kernel':'K1','blocks':2,'threads':256,%s}]}",
             device, kernel_tail);
    return buf;
}

static sim_config config_of(const scn_scenario *s, size_t run) {
    sim_config cfg;
    char err[256];
    assert_int_equal(scn_config(s, run, &cfg, err, sizeof err), 0);
    return cfg;
}

/* ---- units ---------------------------------------------------------------- */

static int64_t block_time_of(const char *value) {
    char tail[256];
    snprintf(tail, sizeof tail, "'block_time':%s", value);
    scn_scenario *s = parse_ok(one_kernel("'tx2'", tail));
    sim_config cfg = config_of(s, 0);
    assert_int_equal(cfg.ops[0].nblock_time, 1);
    int64_t v = cfg.ops[0].block_time[0];
    scn_free(s);
    return v;
}

static void test_duration_units(void **state) {
    (void)state;
    assert_int_equal(block_time_of("'1s'"), INT64_C(1000000000));
    assert_int_equal(block_time_of("'0.2s'"), INT64_C(200000000));
    assert_int_equal(block_time_of("'0.65s'"), INT64_C(650000000));
    assert_int_equal(block_time_of("'0.1s'"), INT64_C(100000000));
    assert_int_equal(block_time_of("'250ms'"), INT64_C(250000000));
    assert_int_equal(block_time_of("'1.5ms'"), INT64_C(1500000));
    assert_int_equal(block_time_of("'40us'"), INT64_C(40000));
    assert_int_equal(block_time_of("'40\xc2\xb5s'"), INT64_C(40000));   /* 40 µs */
    assert_int_equal(block_time_of("'.5ms'"), INT64_C(500000));
    assert_int_equal(block_time_of("'007ns'"), INT64_C(7));
    assert_int_equal(block_time_of("'100ns'"), INT64_C(100));
    assert_int_equal(block_time_of("'0.000000001s'"), INT64_C(1));
    assert_int_equal(block_time_of("'3 s'"), INT64_C(3000000000));
    assert_int_equal(block_time_of("1000"), INT64_C(1000));
    assert_int_equal(block_time_of("1e9"), INT64_C(1000000000));
    /* tx2 clock is 1.3 GHz: 13 cycles = 10 ns exactly, 12 cycles = 9.23 ns -> 9 */
    assert_int_equal(block_time_of("'13cycles'"), INT64_C(10));
    assert_int_equal(block_time_of("'12cycles'"), INT64_C(9));
    assert_int_equal(block_time_of("'1300000000cycles'"), INT64_C(1000000000));
}

static void test_size_and_rate_units(void **state) {
    (void)state;
    scn_scenario *s = parse_ok(
        "{'schema':'schedlab-scenario/1',"
        "'device':{'preset':'tx2','copy_bandwidth':'12GB/s','clock':'1.5GHz',"
        "          'smem_per_sm':'96KB','max_smem_per_block':'0.0625MB'},"
        "'ops':[{'kernel':'K1','blocks':1,'threads':32,'smem':'32KB','block_time':'1s'},"
        "       {'kernel':'K2','blocks':1,'threads':32,'smem':'1.5KB','block_time':'1s'},"
        "       {'kernel':'K3','blocks':1,'threads':32,'smem':100,'block_time':'1s'},"
        "       {'copy':'C1','bytes':'256MB','direction':'h2d'},"
        "       {'copy':'C2','bytes':'1GiB','direction':'d2h'},"
        "       {'copy':'C3','bytes':'0.25KB','direction':'d2d'}]}");
    sim_config cfg = config_of(s, 0);
    assert_true(cfg.device.copy_bandwidth == 12.0 * 1073741824.0);
    assert_int_equal(cfg.device.clock_hz, INT64_C(1500000000));
    assert_int_equal(cfg.device.smem_per_sm, 98304);
    assert_int_equal(cfg.device.max_smem_per_block, 65536);
    assert_int_equal(cfg.ops[0].smem, 32768);
    assert_int_equal(cfg.ops[1].smem, 1536);
    assert_int_equal(cfg.ops[2].smem, 100);
    assert_int_equal(cfg.ops[3].bytes, INT64_C(268435456));
    assert_int_equal(cfg.ops[3].direction, TRACE_COPY_H2D);
    assert_int_equal(cfg.ops[4].bytes, INT64_C(1073741824));
    assert_int_equal(cfg.ops[4].direction, TRACE_COPY_D2H);
    assert_int_equal(cfg.ops[5].bytes, 256);
    assert_int_equal(cfg.ops[5].direction, TRACE_COPY_D2D);
    scn_free(s);

    /* 256MB in 0.2 s: the rate the Fig. 3 scenario uses */
    s = parse_ok("{'schema':'schedlab-scenario/1',"
                 "'device':{'preset':'tx2','copy_bandwidth':'1280MB/s'},"
                 "'ops':[{'copy':'C','bytes':'256MB','direction':'h2d'}]}");
    cfg = config_of(s, 0);
    assert_true(cfg.device.copy_bandwidth == 1342177280.0);
    scn_free(s);
}

static void test_bad_units(void **state) {
    (void)state;
    expect_error(one_kernel("'tx2'", "'block_time':'1 parsec'"),
                 "t.json: ops[0].block_time: \"1 parsec\" has an unknown unit \"parsec\" "
                 "(s, ms, us, ns or cycles)");
    expect_error(one_kernel("'tx2'", "'block_time':'1.5ns'"),
                 "t.json: ops[0].block_time: \"1.5ns\" is not a whole number of nanoseconds");
    expect_error(one_kernel("'tx2'", "'block_time':'10'"),
                 "t.json: ops[0].block_time: \"10\" has no unit (s, ms, us, ns or cycles)");
    expect_error(one_kernel("'tx2'", "'block_time':'fast'"),
                 "t.json: ops[0].block_time: \"fast\" is not a quantity (write a number and a "
                 "unit: s, ms, us, ns or cycles)");
    expect_error(one_kernel("'tx2'", "'block_time':'-1s'"),
                 "t.json: ops[0].block_time: \"-1s\" must not be negative");
    expect_error(one_kernel("'tx2'", "'block_time':'1s','smem':'-4KB'"),
                 "t.json: ops[0].smem: \"-4KB\" must not be negative");
    expect_error(one_kernel("'tx2'", "'block_time':'-.5 ms'"),
                 "t.json: ops[0].block_time: \"-.5 ms\" must not be negative");
    expect_error(one_kernel("'tx2'", "'block_time':'-'"),
                 "t.json: ops[0].block_time: \"-\" is not a quantity (write a number and a "
                 "unit: s, ms, us, ns or cycles)");
    expect_error(one_kernel("'tx2'", "'block_time':-5"),
                 "t.json: ops[0].block_time: -5 must not be negative");
    expect_error(one_kernel("'tx2'", "'block_time':1.5"),
                 "t.json: ops[0].block_time: 1.5 is not a whole number of nanoseconds (a bare "
                 "number is ns; for seconds write \"1.5s\")");
    expect_error(one_kernel("'tx2'", "'block_time':1,'smem':0.5"),
                 "t.json: ops[0].smem: 0.5 is not a whole number of bytes");
    expect_error(one_kernel("'tx2'", "'block_time':true"),
                 "t.json: ops[0].block_time: must be a number (nanoseconds) or a string with "
                 "a unit, not a boolean");
    expect_error(one_kernel("'tx2'", "'block_time':'1.s'"),
                 "t.json: ops[0].block_time: \"1.s\": a decimal point needs digits after it");
    expect_error(one_kernel("'tx2'", "'block_time':'1.5cycles'"),
                 "t.json: ops[0].block_time: \"1.5cycles\": give a whole number of cycles");
    expect_error(one_kernel("{'preset':'tx2','clock':0}", "'block_time':'12cycles'"),
                 "t.json: ops[0].block_time: 12 cycles need the device's clock; set "
                 "device.clock (e.g. \"1300MHz\")");
    expect_error(one_kernel("'tx2'", "'block_time':'1s','smem':'2kb'"),
                 "t.json: ops[0].smem: \"2kb\" has an unknown unit \"kb\" (B, KB, MB, GB or TB "
                 "(KB = 1024 bytes))");
    expect_error(one_kernel("'tx2'", "'block_time':'1s','smem':'0.5B'"),
                 "t.json: ops[0].smem: \"0.5B\" is not a whole number of bytes");
    expect_error(one_kernel("'tx2'", "'block_time':'123456789012345678s'"),
                 "t.json: ops[0].block_time: \"123456789012345678s\" has too many digits");
    expect_error(one_kernel("'tx2'", "'block_time':'99999999999s'"),
                 "t.json: ops[0].block_time: \"99999999999s\" is longer than this build "
                 "accepts (1000000s)");
    /* a bare 1e19 is whole, only too large: no "for seconds write" hint */
    expect_error(one_kernel("'tx2'", "'block_time':1e19"),
                 "t.json: ops[0].block_time: 1e+19 is longer than this build accepts "
                 "(1000000s)");
    expect_error(one_kernel("'tx2'", "'block_time':-1e19"),
                 "t.json: ops[0].block_time: -1e+19 must not be negative");
    expect_error(one_kernel("'tx2'", "'block_time':1,'smem':1e30"),
                 "t.json: ops[0].smem: 1e+30 is too large");
    expect_error(one_kernel("'tx2'", "'block_time':1,'smem':'99999999TB'"),
                 "t.json: ops[0].smem: \"99999999TB\" is too large");
    expect_error(one_kernel("'tx2'", "'block_time':'2000000s'"),
                 "t.json: ops[0].block_time: the duration is longer than this build accepts "
                 "(1000000s)");
    expect_error(one_kernel("{'preset':'tx2','copy_bandwidth':'12GB'}", "'block_time':'1s'"),
                 "t.json: device.copy_bandwidth: \"12GB\" has an unknown unit \"GB\" (B/s, KB/s, "
                 "MB/s, GB/s or TB/s (KB = 1024 bytes))");
    expect_error(one_kernel("{'preset':'tx2','clock':'1.3 GHz/s'}", "'block_time':'1s'"),
                 "t.json: device.clock: \"1.3 GHz/s\" has an unknown unit \"GHz/s\" (Hz, kHz, "
                 "MHz or GHz)");
}

/* ---- did you mean, unknown keys --------------------------------------------- */

static void test_did_you_mean(void **state) {
    (void)state;
    expect_error(one_kernel("'tx2'", "'thread':256,'block_time':'1s'"),
                 "t.json: ops[0]: unknown key \"thread\" (did you mean \"threads\"?)");
    expect_error(one_kernel("'tx2'", "'block-time':'1s'"),
                 "t.json: ops[0]: unknown key \"block-time\" (did you mean \"block_time\"?)");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2','ops':[],'varients':[]}",
                 "t.json: unknown key \"varients\" (did you mean \"variants\"?)");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx-2',"
                 "'ops':[{'kernel':'K','blocks':1,'threads':1,'block_time':1}]}",
                 "t.json: device: unknown preset \"tx-2\" (did you mean \"tx2\"?)");
    expect_error("{'schema':'schedlab-scenario/1','device':{'preset':'tx2','smem_per_SM':1},"
                 "'ops':[{'kernel':'K','blocks':1,'threads':1,'block_time':1}]}",
                 "t.json: device: unknown key \"smem_per_SM\" (did you mean \"smem_per_sm\"?)");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2',"
                 "'policy':{'placement':'most_room'},"
                 "'ops':[{'kernel':'K','blocks':1,'threads':1,'block_time':1}]}",
                 "t.json: policy.placement: unknown placement \"most_room\" (did you mean "
                 "\"most-room\"?)");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2',"
                 "'streams':[{'name':'S1','priority':'hgh'}],"
                 "'ops':[{'kernel':'K','blocks':1,'threads':1,'block_time':1}]}",
                 "t.json: streams[0].priority: unknown priority \"hgh\" (did you mean \"high\"?)");
    /* nothing close: the full list instead of a guess */
    expect_error(one_kernel("'tx2'", "'zzzzzz':1,'block_time':'1s'"),
                 "t.json: ops[0]: unknown key \"zzzzzz\" (known: kernel, copy, sync, stream, "
                 "process, task, at, launch_latency, blocks, threads, smem, regs, block_time, "
                 "program, latency, budget, qos_goal, bytes, "
                 "direction, duration, blocking, scope)");
    /* a key of another op kind is named as such, not as a typo */
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2',"
                 "'ops':[{'copy':'C','bytes':1,'direction':'h2d','threads':4}]}",
                 "t.json: ops[0]: \"threads\" does not apply to a copy (a copy takes: copy, "
                 "stream, process, task, at, launch_latency, bytes, direction, duration, blocking)");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2',"
                 "'ops':[{'copy':'C','bytes':1,'direction':'h2h'}]}",
                 "t.json: ops[0].direction: unknown direction \"h2h\" (did you mean \"h2d\"?)");
    /* a memset is stream work without an engine: its bytes give no time */
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2',"
                 "'ops':[{'copy':'M','bytes':64,'direction':'memset'}]}",
                 "t.json: ops[0]: memset \"M\" needs \"duration\" (it uses no copy engine, so "
                 "its bytes give no time)");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2',"
                 "'ops':[{'copy':'C','bytes':64,'direction':'h2d','duration':0}]}",
                 "t.json: ops[0].duration: must be more than 0");
}

/* A copy with "duration" takes exactly that long on its engine; a memset
 * holds its stream for its duration on no engine, so a later copy of
 * another stream does not wait for it, and the next op of its own stream
 * does (issue 10: what a replay writes). */
static void test_copy_duration_and_memset(void **state) {
    (void)state;
    scn_scenario *s = parse_ok("{'schema':'schedlab-scenario/1','device':'tx2',"
        "'streams':[{'name':'S1'},{'name':'S2'}],"
        "'ops':[{'copy':'C1','stream':'S1','bytes':'256MB','direction':'h2d','duration':'3ms'},"
        "       {'copy':'M','stream':'S2','bytes':64,'direction':'memset','duration':'5ms'},"
        "       {'kernel':'K','stream':'S2','blocks':1,'threads':32,'block_time':'1ms'},"
        "       {'copy':'C2','stream':'S1','bytes':1,'direction':'h2d'}]}");
    sim_config cfg;
    char err[512];
    assert_int_equal(scn_config(s, 0, &cfg, err, sizeof err), 0);
    assert_int_equal(cfg.ops[0].duration, 3000000);
    assert_int_equal(cfg.ops[1].direction, TRACE_COPY_MEMSET);
    trace t;
    trace_init(&t);
    assert_int_equal(sim_run(&cfg, &t, err, sizeof err), 0);
    /* C1 on engine 0 for exactly 3 ms; the memset beside it from 0 to 5 ms
     * on no engine; K after it in S2; C2 after C1 in S1 */
    assert_int_equal(t.copies.v[0].start, 0);
    assert_int_equal(t.copies.v[0].end, 3000000);
    assert_int_equal(t.copies.v[0].engine, 0);
    assert_int_equal(t.copies.v[1].start, 0);
    assert_int_equal(t.copies.v[1].end, 5000000);
    assert_int_equal(t.copies.v[1].engine, -1);
    assert_int_equal(t.kernels.v[0].first_block, 5000000);
    assert_int_equal(t.copies.v[2].start, 3000000);
    trace_free(&t);
    scn_free(s);
}

/* ---- the error lines DESIGN §3 and the brief spell out ------------------------ */

static void test_error_messages_verbatim(void **state) {
    (void)state;
    /* a key given as null is no default: it is refused with its type
     * (scn_keys.c: only the _opt readers take null as absent) */
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2','ops':["
                 "{'kernel':'K1','blocks':2,'threads':256,'block_time':'1ms','smem':null}]}",
                 "t.json: ops[0].smem: must be a number (bytes) or a string with a unit, not null");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2','ops':["
                 "{'kernel':'K1','blocks':1,'threads':32,'block_time':1},"
                 "{'kernel':'K2','blocks':1,'threads':32,'block_time':1},"
                 "{'kernel':'K3','blocks':1,'threads':32,'block_time':1},"
                 "{'kernel':'K4','blocks':1,'threads':2048,'block_time':1}]}",
                 "t.json: ops[3].threads: 2048 is more than the device's "
                 "max_threads_per_block (1024)");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2','ops':["
                 "{'kernel':'K1','blocks':1,'threads':32,'block_time':1},"
                 "{'kernel':'K2','blocks':1,'threads':32,'smem':'96KB','block_time':1}]}",
                 "t.json: ops[1].smem: a block needs 96KB but an SM has 64KB");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2','ops':["
                 "{'kernel':'K1','blocks':1,'threads':32,'smem':'56KB','block_time':1}]}",
                 "t.json: ops[0].smem: a block needs 56KB but the device allows 48KB per block "
                 "(max_smem_per_block)");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2',"
                 "'streams':[{'name':'S1'},{'name':'S2'}],'ops':["
                 "{'kernel':'K1','stream':'S1','blocks':1,'threads':32,'block_time':1},"
                 "{'kernel':'K2','stream':'S2','blocks':1,'threads':32,'block_time':1},"
                 "{'kernel':'K3','stream':'S9','blocks':1,'threads':32,'block_time':1}]}",
                 "t.json: ops[2].stream: no stream named \"S9\" (streams: S1, S2)");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2','ops':["
                 "{'kernel':'K1','blocks':1,'threads':1024,'regs':64,'block_time':1}]}",
                 "t.json: ops[0].regs: a block needs 65536 registers (1024 threads x 64) but "
                 "the device allows 32768 per block (max_regs_per_block)");
    /* JSON syntax: FILE:LINE:COL from jansson */
    expect_error("{'schema':'schedlab-scenario/1',\n'device':'tx2',\n'ops': [,]}",
                 "t.json:3:9: JSON: unexpected token near ','");
    expect_error("{'schema':'schedlab-scenario/1','schema':'x'}",
                 "t.json:1:40: JSON: duplicate object key near '\"schema\"'");
    expect_error("[1]", "t.json: a scenario is a JSON object, not an array");
    expect_error("{'device':'tx2'}",
                 "t.json: schema: missing (write \"schema\": \"schedlab-scenario/1\")");
    expect_error("{'schema':'schedlab-scenario/2'}",
                 "t.json: schema: \"schedlab-scenario/2\" is not supported (this build reads "
                 "\"schedlab-scenario/1\")");
    /* another schema is named before the keys are checked as a scenario's:
     * a multi-GPU replay said 'unknown key "devices" (did you mean
     * "device"?)', a trace 'unknown key "source"' */
    expect_error("{'schema':'schedlab-scenario/2','devices':[]}",
                 "t.json: schema: \"schedlab-scenario/2\" is not supported (this build reads "
                 "\"schedlab-scenario/1\")");
    expect_error("{'schema':'schedlab-replay-devices/1','devices':[{'device':'gpu0',"
                 "'scenario':{}}]}",
                 "t.json: schema: \"schedlab-replay-devices/1\" is the replay of a trace of "
                 "several GPUs: each devices[i].scenario is a \"schedlab-scenario/1\" of its "
                 "own, simulated alone");
    expect_error("{'schema':'schedlab-trace/1','name':'x','source':'simulation','kernels':[]}",
                 "t.json: schema: \"schedlab-trace/1\" is a trace, not a scenario (`schedlab "
                 "import` stores it; `schedlab replay` makes a scenario of the stored run)");
    expect_error("{'schema':'schedlab-scenario/1','ops':[]}",
                 "t.json: device: missing (a preset name such as \"tx2\", or an object)");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2','ops':[]}",
                 "t.json: ops: is empty; give at least one kernel or copy");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2','ops':[{'kernel':'K1',"
                 "'blocks':1,'threads':32}]}",
                 "t.json: ops[0]: kernel \"K1\" needs \"block_time\" (how long each block runs) "
                 "or \"program\" (the instructions its warps run)");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2','ops':[{'kernel':'K1',"
                 "'copy':'C','blocks':1,'threads':32,'block_time':1}]}",
                 "t.json: ops[0]: has both \"kernel\" and \"copy\"; an op is one of them");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2','ops':[{'blocks':1}]}",
                 "t.json: ops[0]: needs \"kernel\", \"copy\" or \"sync\" with the op's name, "
                 "e.g. {\"kernel\": \"K1\", ...}");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2','ops':[{'kernel':'K1',"
                 "'blocks':0,'threads':32,'block_time':1}]}",
                 "t.json: ops[0].blocks: 0 must be at least 1");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2','ops':[{'kernel':'K1',"
                 "'blocks':'6','threads':32,'block_time':1}]}",
                 "t.json: ops[0].blocks: must be a number, not a string");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2','ops':[{'kernel':'K1',"
                 "'blocks':50000001,'threads':32,'block_time':1}]}",
                 "t.json: ops[0].blocks: the scenario's kernels would have more than 50000000 "
                 "blocks in all, the most this build simulates");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2','ops':[{'kernel':'K1',"
                 "'blocks':1,'threads':32,'block_time':[]}]}",
                 "t.json: ops[0].block_time: must not be an empty array");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2','ops':[{'kernel':'K1',"
                 "'blocks':1,'threads':32,'block_time':['1s','x']}]}",
                 "t.json: ops[0].block_time[1]: \"x\" is not a quantity (write a number and a "
                 "unit: s, ms, us, ns or cycles)");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2','ops':[{'kernel':'K1',"
                 "'blocks':1,'threads':32,'block_time':1,'program':[]}]}",
                 "t.json: ops[0]: kernel \"K1\" gives both \"block_time\" and \"program\"; its "
                 "blocks take one or the other");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2','ops':[{'kernel':'K1',"
                 "'blocks':1,'threads':32,'regs':256,'block_time':1}]}",
                 "t.json: ops[0].regs: 256 is more than 255 registers per thread");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2','ops':["
                 "{'copy':'C','bytes':'1KB'}]}",
                 "t.json: ops[0]: copy \"C\" is missing \"direction\" (h2d, d2h, d2d, memset or "
                 "other)");
    /* the values the hints name are every value the key takes
     * (docs/scenario-format.md: a copy's direction, a body's classes) */
    expect_error("{'schema':'schedlab-scenario/1','device':'titanv-gpgpusim','ops':[{'kernel':'K1',"
                 "'blocks':1,'threads':32,'program':{'body':[{'count':2}]}}]}",
                 "t.json: ops[0].program.body[0]: missing \"op\" (alu, sfu, shared, mem or barrier)");
}

/* ---- streams ----------------------------------------------------------------- */

static void test_streams_and_priorities(void **state) {
    (void)state;
    scn_scenario *s = parse_ok(
        "{'schema':'schedlab-scenario/1','device':'tx2',"
        "'streams':[{'name':'S1','priority':'low'},{'name':'S2','priority':'high'},"
        "           {'name':'S3'},{'name':'S4','priority':'none','process':'P1'},"
        "           {'name':'S5','priority':-3}],"
        "'ops':[{'kernel':'K1','stream':'S1','blocks':1,'threads':32,'block_time':1},"
        "       {'kernel':'K2','blocks':1,'threads':32,'block_time':1},"
        "       {'kernel':'K3','stream':'null','process':'P1','blocks':1,'threads':32,"
        "        'block_time':1},"
        "       {'sync':'Y','stream':'S4','at':'1ms'},"
        "       {'kernel':'K4','stream':'null','blocks':1,'threads':32,'block_time':1}]}");
    sim_config cfg = config_of(s, 0);
    /* declared streams in order, then each process's NULL stream on first use */
    assert_int_equal(cfg.nstreams, 7);
    assert_string_equal(cfg.streams[0].name, "S1");
    assert_int_equal(cfg.streams[0].priority, 0);
    assert_string_equal(cfg.streams[0].process, "P0");
    assert_int_equal(cfg.streams[1].priority, -1);
    assert_int_equal(cfg.streams[2].priority, SIM_PRIO_NONE);
    assert_string_equal(cfg.streams[3].process, "P1");
    assert_int_equal(cfg.streams[3].priority, SIM_PRIO_NONE);
    assert_int_equal(cfg.streams[4].priority, -3);
    assert_string_equal(cfg.streams[5].name, "null");
    assert_string_equal(cfg.streams[5].process, "P0");
    assert_string_equal(cfg.streams[6].name, "null");
    assert_string_equal(cfg.streams[6].process, "P1");
    /* ops in array order, each on its stream */
    assert_int_equal(cfg.nops, 5);
    assert_int_equal(cfg.ops[0].stream, 0);
    assert_int_equal(cfg.ops[1].stream, 5);
    assert_int_equal(cfg.ops[2].stream, 6);
    assert_int_equal(cfg.ops[3].kind, SIM_OP_SYNC);
    assert_int_equal(cfg.ops[3].stream, 3);
    assert_int_equal(cfg.ops[3].at, 1000000);
    assert_int_equal(cfg.ops[4].stream, 5);
    assert_string_equal(cfg.ops[4].name, "K4");
    scn_free(s);

    expect_error("{'schema':'schedlab-scenario/1','device':'tx2',"
                 "'streams':[{'name':'S1'},{'name':'S1','process':'P1'}],"
                 "'ops':[{'kernel':'K','blocks':1,'threads':1,'block_time':1}]}",
                 "t.json: streams[1].name: \"S1\" is already streams[0]");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2',"
                 "'streams':[{'name':'S1','process':'P1'}],"
                 "'ops':[{'kernel':'K','stream':'S1','process':'P0','blocks':1,'threads':1,"
                 "'block_time':1}]}",
                 "t.json: ops[0].stream: stream \"S1\" belongs to process \"P1\", not \"P0\"");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2',"
                 "'ops':[{'kernel':'K','stream':'S1','blocks':1,'threads':1,'block_time':1}]}",
                 "t.json: ops[0].stream: no stream named \"S1\" (streams: none declared; only "
                 "\"null\")");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2',"
                 "'streams':[{'name':'S1','priority':1.5}],"
                 "'ops':[{'kernel':'K','blocks':1,'threads':1,'block_time':1}]}",
                 "t.json: streams[0].priority: must be \"high\", \"low\", \"none\" or an "
                 "integer, not a number");
}

/* ---- presets, overrides, full devices --------------------------------------- */

static void test_presets_with_overrides(void **state) {
    (void)state;
    scn_scenario *s = parse_ok(one_kernel("'rtx2080ti'", "'block_time':1"));
    sim_config cfg = config_of(s, 0);
    assert_string_equal(cfg.device.name, "rtx2080ti");
    assert_int_equal(cfg.device.sms, 68);
    assert_int_equal(cfg.device.threads_per_sm, 1024);
    assert_int_equal(cfg.device.sm_order_kind, SIM_SM_ORDER_EVENS_THEN_ODDS);
    assert_int_equal(cfg.device.sm_order[33], 66);
    assert_int_equal(cfg.device.sm_order[34], 1);
    assert_int_equal(cfg.device.sm_order[67], 67);
    scn_free(s);

    s = parse_ok(one_kernel("{'preset':'tx2','sms':4,'threads_per_sm':1536,'name':'tx2-big',"
                            "'copy_engines':2}", "'block_time':1"));
    cfg = config_of(s, 0);
    assert_string_equal(cfg.device.name, "tx2-big");
    assert_int_equal(cfg.device.sms, 4);
    assert_int_equal(cfg.device.threads_per_sm, 1536);
    assert_int_equal(cfg.device.max_threads_per_block, 1024);   /* from the preset */
    assert_int_equal(cfg.device.copy_engines, 2);
    assert_int_equal(cfg.device.sm_order[3], 3);
    scn_free(s);

    /* a device written out in full */
    s = parse_ok(one_kernel(
        "{'sms':3,'threads_per_sm':2048,'max_threads_per_block':1024,'blocks_per_sm':16,"
        "'warps_per_sm':64,'regs_per_sm':65536,'max_regs_per_block':65536,"
        "'smem_per_sm':'64KB','max_smem_per_block':'48KB','warp_size':32,"
        "'copy_bandwidth':'1GB/s'}", "'block_time':1"));
    cfg = config_of(s, 0);
    assert_string_equal(cfg.device.name, "custom");
    assert_int_equal(cfg.device.sms, 3);
    assert_int_equal(cfg.device.blocks_per_sm, 16);
    assert_int_equal(cfg.device.schedulers_per_sm, 4);
    assert_int_equal(cfg.device.copy_engines, 1);
    assert_int_equal(cfg.device.clock_hz, 0);
    assert_int_equal(cfg.device.sm_order[2], 2);
    assert_true(cfg.device.copy_bandwidth == 1073741824.0);
    scn_free(s);

    expect_error(one_kernel("{'sms':3,'threads_per_sm':2048}", "'block_time':1"),
                 "t.json: device: missing \"max_threads_per_block\" (a device without "
                 "\"preset\" gives every field; or start from a preset: {\"preset\": \"tx2\", "
                 "...})");
    /* the simulator's own consistency check, re-rooted at the place */
    expect_error(one_kernel("{'preset':'tx2','max_smem_per_block':'128KB'}", "'block_time':1"),
                 "t.json: device.max_smem_per_block: 131072 bytes is outside 0..smem_per_sm "
                 "(65536)");
    expect_error(one_kernel("{'preset':'tx2','sms':0}", "'block_time':1"),
                 "t.json: device.sms: 0 must be at least 1");
    expect_error(one_kernel("7", "'block_time':1"),
                 "t.json: device: must be a preset name (such as \"tx2\") or an object, not an "
                 "integer");
    /* the warp model's front end: a count, from the preset or given */
    s = parse_ok(one_kernel("'isca17-gpgpusim'", "'block_time':1"));
    cfg = config_of(s, 0);
    assert_int_equal(cfg.device.fetch_warps, 1);
    assert_int_equal(cfg.device.ibuffer, 2);
    assert_true(cfg.device.sm_mem_bandwidth == 0.2);
    scn_free(s);
    s = parse_ok(one_kernel("{'preset':'titanv-gpgpusim','fetch_warps':2,'ibuffer':4}",
                            "'block_time':1"));
    cfg = config_of(s, 0);
    assert_int_equal(cfg.device.fetch_warps, 2);
    assert_int_equal(cfg.device.ibuffer, 4);
    scn_free(s);
    expect_error(one_kernel("{'preset':'titanv-gpgpusim','fetch_warps':1}", "'block_time':1"),
                 "t.json: device.ibuffer: 0; with fetch_warps 1 the front end decodes ibuffer "
                 "instructions per fetch (GPGPU-Sim: 2)");
    expect_error(one_kernel("{'preset':'isca17-gpgpusim','sm_mem_bandwidth':0.0001}",
                            "'block_time':1"),
                 "t.json: device.sm_mem_bandwidth: 0.0001 requests per cycle is outside "
                 "0.001..65536 (0: no limit)");
    expect_error(one_kernel("{'preset':'isca17-gpgpusim','fetch_warps':1.5}", "'block_time':1"),
                 "t.json: device.fetch_warps: 1.5 is not a whole number");
}

static void test_sm_order_forms(void **state) {
    (void)state;
    scn_scenario *s = parse_ok(one_kernel("{'preset':'tx2','sms':6,'sm_order':'evens-then-odds'}",
                                          "'block_time':1"));
    sim_config cfg = config_of(s, 0);
    static const int16_t eo[] = {0, 2, 4, 1, 3, 5};
    assert_int_equal(cfg.device.sm_order_kind, SIM_SM_ORDER_EVENS_THEN_ODDS);
    assert_memory_equal(cfg.device.sm_order, eo, sizeof eo);
    scn_free(s);

    s = parse_ok(one_kernel("{'preset':'rtx2080ti','sm_order':'ascending'}", "'block_time':1"));
    cfg = config_of(s, 0);
    assert_int_equal(cfg.device.sm_order_kind, SIM_SM_ORDER_ASCENDING);
    assert_int_equal(cfg.device.sm_order[1], 1);
    assert_int_equal(cfg.device.sm_order[67], 67);
    scn_free(s);

    s = parse_ok(one_kernel("{'preset':'tx2','sms':4,'sm_order':[2,0,3,1]}", "'block_time':1"));
    cfg = config_of(s, 0);
    static const int16_t ex[] = {2, 0, 3, 1};
    assert_int_equal(cfg.device.sm_order_kind, SIM_SM_ORDER_EXPLICIT);
    assert_memory_equal(cfg.device.sm_order, ex, sizeof ex);
    scn_free(s);

    expect_error(one_kernel("{'preset':'tx2','sm_order':[0,1,2]}", "'block_time':1"),
                 "t.json: device.sm_order: lists 3 SMs but the device has 2");
    expect_error(one_kernel("{'preset':'tx2','sm_order':[1,1]}", "'block_time':1"),
                 "t.json: device.sm_order[1]: SM 1 appears twice; the order must list every SM "
                 "once");
    expect_error(one_kernel("{'preset':'tx2','sm_order':[0,2]}", "'block_time':1"),
                 "t.json: device.sm_order[1]: SM 2 is outside 0..1");
    expect_error(one_kernel("{'preset':'tx2','sm_order':'odds-then-evens'}", "'block_time':1"),
                 "t.json: device.sm_order: unknown order \"odds-then-evens\" (known: ascending, "
                 "evens-then-odds)");
}

/* ---- policy ------------------------------------------------------------------ */

static void test_policy(void **state) {
    (void)state;
    scn_scenario *s = parse_ok(
        "{'schema':'schedlab-scenario/1','device':'tx2',"
        "'policy':{'placement':'round-robin','launch_latency':'40us',"
        "          'dispatch_latency':'13cycles','contexts':'shared'},"
        "'ops':[{'kernel':'K','blocks':1,'threads':1,'block_time':1}]}");
    sim_config cfg = config_of(s, 0);
    assert_int_equal(cfg.policy.placement, sim_placement_find("round-robin"));
    assert_int_equal(cfg.policy.launch_latency, 40000);
    assert_int_equal(cfg.policy.dispatch_latency, 10);
    assert_string_equal(scn_run_name(s, 0), "default");
    scn_free(s);

    s = parse_ok(one_kernel("'tx2'", "'block_time':1"));
    cfg = config_of(s, 0);
    assert_int_equal(cfg.policy.placement, sim_placement_find("most-room"));
    assert_int_equal(cfg.policy.launch_latency, 0);
    assert_int_equal(cfg.policy.dispatch_latency, 0);
    scn_free(s);

    /* the shipped warp policies in table order (their ids are stored: new
     * ones go last, docs/extending.md), then any added after them */
    char known[512] = "t.json: policy.warp: unknown warp policy \"fifo\" (known: gto, lrr, qaws, "
                      "quota-naive, quota-history, quota-elastic, quota-rollover, quota-rollover-time";
    for (int32_t i = 8; i < (int32_t)sim_policy_count(SIM_TABLE_WARP); i++)
        snprintf(known + strlen(known), sizeof known - strlen(known), ", %s",
                 sim_policy_name(SIM_TABLE_WARP, i));
    strcat(known, ")");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2','policy':{'warp':'fifo'},"
                 "'ops':[{'kernel':'K','blocks':1,'threads':1,'block_time':1}]}",
                 known);
    /* GPU contexts (issue 13): the driver table and its times */
    s = parse_ok("{'schema':'schedlab-scenario/1','device':'tx2',"
                 "'policy':{'contexts':'gcaps','time_slice':'2ms','context_switch':'200us',"
                 "          'runlist_update':'1ms','gpu_wait':'busy'},"
                 "'ops':[{'kernel':'K','blocks':1,'threads':1,'block_time':1}]}");
    cfg = config_of(s, 0);
    assert_int_equal(cfg.policy.driver, sim_policy_find(SIM_TABLE_DRIVER, "gcaps"));
    assert_int_equal(cfg.policy.time_slice, 2000000);
    assert_int_equal(cfg.policy.context_switch, 200000);
    assert_int_equal(cfg.policy.runlist_update, 1000000);
    assert_int_equal(cfg.policy.gpu_wait, SIM_WAIT_BUSY);
    assert_int_equal(cfg.policy.ioctl_bookkeeping, 0);   /* absent: every macro at eps */
    scn_free(s);
    /* issue 27: bookkeeping-only ioctls at their own cost */
    s = parse_ok("{'schema':'schedlab-scenario/1','device':'tx2',"
                 "'policy':{'contexts':'gcaps','runlist_update':'508us','ioctl_bookkeeping':'38us'},"
                 "'ops':[{'kernel':'K','blocks':1,'threads':1,'block_time':1}]}");
    cfg = config_of(s, 0);
    assert_int_equal(cfg.policy.ioctl_bookkeeping, 38000);
    assert_false(cfg.policy.has_context_switch_idle);   /* absent: every switch at theta */
    scn_free(s);
    /* issue 27 (Table 5): a switch away from an idle context at its own cost;
     * "0us" is a value, not absence, and a variant keeps the base's */
    s = parse_ok("{'schema':'schedlab-scenario/1','device':'tx2',"
                 "'policy':{'contexts':'time-slice','context_switch':'319us',"
                 "          'context_switch_idle':'0us'},"
                 "'ops':[{'kernel':'K','blocks':1,'threads':1,'block_time':1}],"
                 "'variants':[{'name':'busy','policy':{'gpu_wait':'busy'}},"
                 "            {'name':'idle5','policy':{'context_switch_idle':'5us'}}]}");
    cfg = config_of(s, 0);
    assert_true(cfg.policy.has_context_switch_idle);
    assert_int_equal(cfg.policy.context_switch_idle, 0);
    assert_int_equal(cfg.policy.context_switch, 319000);
    cfg = config_of(s, 1);
    assert_true(cfg.policy.has_context_switch_idle);
    assert_int_equal(cfg.policy.context_switch_idle, 0);
    cfg = config_of(s, 2);
    assert_int_equal(cfg.policy.context_switch_idle, 5000);
    scn_free(s);
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2','policy':{'context_switch_idle':'idle'},"
                 "'ops':[{'kernel':'K','blocks':1,'threads':1,'block_time':1}]}",
                 "t.json: policy.context_switch_idle: \"idle\" is not a quantity (write a number "
                 "and a unit: s, ms, us, ns or cycles)");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2','policy':{'ioctl_bookkeeping':'fast'},"
                 "'ops':[{'kernel':'K','blocks':1,'threads':1,'block_time':1}]}",
                 "t.json: policy.ioctl_bookkeeping: \"fast\" is not a quantity (write a number "
                 "and a unit: s, ms, us, ns or cycles)");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2','policy':{'contexts':'gcap'},"
                 "'ops':[{'kernel':'K','blocks':1,'threads':1,'block_time':1}]}",
                 "t.json: policy.contexts: unknown contexts \"gcap\" (did you mean \"gcaps\"?)");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2','policy':{'gpu_wait':'spin'},"
                 "'ops':[{'kernel':'K','blocks':1,'threads':1,'block_time':1}]}",
                 "t.json: policy.gpu_wait: unknown gpu_wait \"spin\" (known: suspend, busy)");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2','policy':{'placement':'best'},"
                 "'ops':[{'kernel':'K','blocks':1,'threads':1,'block_time':1}]}",
                 "t.json: policy.placement: unknown placement \"best\" (known: most-room, "
                 "round-robin, spart, spart-climb)");
}

/* ---- variants and run names -------------------------------------------------- */

static void test_variants(void **state) {
    (void)state;
    scn_scenario *s = parse_ok(
        "{'schema':'schedlab-scenario/1','name':'V','description':'d','device':'tx2',"
        "'ops':[{'kernel':'K','blocks':1,'threads':1,'block_time':'26cycles'}],"
        "'variants':[{'name':'round-robin','policy':{'placement':'round-robin'}},"
        "            {'name':'slow-launch','policy':{'launch_latency':'5us'}},"
        "            {'name':'four-sms','device':{'sms':4,'clock':'2.6GHz'}},"
        "            {'name':'pascal','device':'pascal-gilman'}]}");
    assert_string_equal(scn_name(s), "V");
    assert_string_equal(scn_description(s), "d");
    assert_int_equal(scn_run_count(s), 5);
    /* run 0 is named after what the variants change, valued as the base has it */
    assert_string_equal(scn_run_name(s, 0), "most-room-launch-latency-0ns-tx2");
    assert_string_equal(scn_run_name(s, 1), "round-robin");
    assert_string_equal(scn_run_name(s, 4), "pascal");
    assert_null(scn_run_name(s, 5));
    assert_int_equal(scn_find_run(s, "four-sms"), 3);
    assert_int_equal(scn_find_run(s, "most-room-launch-latency-0ns-tx2"), 0);
    assert_int_equal(scn_find_run(s, "nope"), -1);

    sim_config c0 = config_of(s, 0), c1 = config_of(s, 1), c2 = config_of(s, 2),
               c3 = config_of(s, 3), c4 = config_of(s, 4);
    assert_string_equal(c0.name, "V [most-room-launch-latency-0ns-tx2]");
    assert_string_equal(c1.name, "V [round-robin]");
    assert_int_equal(c0.policy.placement, sim_placement_find("most-room"));
    assert_int_equal(c1.policy.placement, sim_placement_find("round-robin"));
    assert_int_equal(c1.device.sms, 2);
    assert_int_equal(c2.policy.placement, sim_placement_find("most-room"));
    assert_int_equal(c2.policy.launch_latency, 5000);
    /* a device override applies on top of the base device; cycles follow its clock */
    assert_int_equal(c0.ops[0].block_time[0], 20);    /* 26 cycles at 1.3 GHz */
    assert_int_equal(c3.device.sms, 4);
    assert_string_equal(c3.device.name, "tx2");
    assert_int_equal(c3.device.sm_order[3], 3);
    assert_int_equal(c3.ops[0].block_time[0], 10);    /* 26 cycles at 2.6 GHz */
    assert_string_equal(c4.device.name, "pascal-gilman");
    assert_int_equal(c4.device.sms, 5);
    char err[256];
    sim_config bad;
    assert_int_equal(scn_config(s, 5, &bad, err, sizeof err), -1);
    assert_string_equal(err, "V: no run 5 (the scenario has 5: the base and 4 variants)");
    scn_free(s);

    s = parse_ok("{'schema':'schedlab-scenario/1','device':'tx2',"
                 "'ops':[{'kernel':'K','blocks':1,'threads':1,'block_time':1}],"
                 "'variants':[{'name':'rr','policy':{'placement':'round-robin'}}]}");
    assert_string_equal(scn_run_name(s, 0), "most-room");
    assert_string_equal(scn_name(s), "t");     /* no "name": the file's base name */
    scn_free(s);

    /* a variant that preempts and adjusts TBs (ISCA'17 §2.3, §3.6): the
     * base, which does neither, is named so; a bool must be one */
    s = parse_ok("{'schema':'schedlab-scenario/1','device':'isca17-gpgpusim',"
                 "'policy':{'warp':'quota-rollover'},"
                 "'ops':[{'kernel':'K','blocks':1,'threads':32,'program':{'body':[{'op':'alu'}]}}],"
                 "'variants':[{'name':'adj','policy':{'tb_adjust':true,'sm_preempt':'100cycles'}}]}");
    assert_string_equal(scn_run_name(s, 0), "no-sm-preempt-no-tb-adjust");
    sim_config a0 = config_of(s, 0), a1 = config_of(s, 1);
    assert_false(a0.policy.tb_adjust);
    assert_false(a0.policy.has_sm_preempt);
    assert_true(a1.policy.tb_adjust);
    assert_true(a1.policy.has_sm_preempt);
    assert_int_equal(a1.policy.sm_preempt, 82);   /* 100 cycles at 1216 MHz: 82.2 ns, rounded */
    scn_free(s);
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2','policy':{'tb_adjust':'yes'},"
                 "'ops':[{'kernel':'K','blocks':1,'threads':1,'block_time':1}]}",
                 "t.json: policy.tb_adjust: must be true or false, not a string");

    /* the derived name would clash with a variant's: "default" instead */
    s = parse_ok("{'schema':'schedlab-scenario/1','device':'tx2',"
                 "'ops':[{'kernel':'K','blocks':1,'threads':1,'block_time':1}],"
                 "'variants':[{'name':'most-room','policy':{'placement':'most-room'}}]}");
    assert_string_equal(scn_run_name(s, 0), "default");
    scn_free(s);

    /* a variant's device must still fit every kernel; the message names it */
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2',"
                 "'ops':[{'kernel':'K','blocks':1,'threads':1024,'block_time':1}],"
                 "'variants':[{'name':'small','device':{'max_threads_per_block':512}}]}",
                 "t.json: variants[0] (\"small\"): ops[0].threads: 1024 is more than the "
                 "device's max_threads_per_block (512)");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2',"
                 "'ops':[{'kernel':'K','blocks':1,'threads':1,'block_time':1}],"
                 "'variants':[{'name':'a','device':{'warp_size':0}}]}",
                 "t.json: variants[0].device.warp_size: 0 is not a positive thread count");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2',"
                 "'ops':[{'kernel':'K','blocks':1,'threads':1,'block_time':1}],"
                 "'variants':[{'name':'a','policy':{'placement':'round-robin'}},"
                 "            {'name':'a','policy':{}}]}",
                 "t.json: variants[1].name: \"a\" is already variants[0]");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2',"
                 "'ops':[{'kernel':'K','blocks':1,'threads':1,'block_time':1}],"
                 "'variants':[{'name':'a'}]}",
                 "t.json: variants[0]: changes nothing; give \"policy\", \"device\" and/or "
                 "\"budgets\"");
    /* a policy or device of no key changes nothing either, as budgets {} */
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2',"
                 "'ops':[{'kernel':'K','blocks':1,'threads':1,'block_time':1}],"
                 "'variants':[{'name':'a','policy':{}}]}",
                 "t.json: variants[0].policy: is empty; give the policy keys this variant "
                 "changes");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2',"
                 "'ops':[{'kernel':'K','blocks':1,'threads':1,'block_time':1}],"
                 "'variants':[{'name':'a','device':{}}]}",
                 "t.json: variants[0].device: is empty; give the device fields this variant "
                 "changes, or a preset");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2',"
                 "'ops':[{'kernel':'K','blocks':1,'threads':1,'block_time':1}],"
                 "'variants':[{'name':'a','policy':{},'budgets':{}}]}",
                 "t.json: variants[0].policy: is empty; give the policy keys this variant "
                 "changes");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2',"
                 "'ops':[{'kernel':'K','blocks':1,'threads':1,'block_time':1}],"
                 "'variants':[{'name':'default','policy':{}}]}",
                 "t.json: variants[0].name: \"default\" is kept for the base run; choose "
                 "another name");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2',"
                 "'ops':[{'kernel':'K','blocks':1,'threads':1,'block_time':1}],"
                 "'variants':[{'name':'a','ops':[]}]}",
                 "t.json: variants[0]: unknown key \"ops\" (known: name, policy, device, budgets)");
}

static void test_block_time_array_and_copies(void **state) {
    (void)state;
    scn_scenario *s = parse_ok(
        "{'schema':'schedlab-scenario/1','device':'pascal-gilman','seed':7,"
        "'ops':[{'kernel':'X','blocks':5,'threads':256,'at':'0s',"
        "        'block_time':['1s','2s','3s','4s','5s']},"
        "       {'kernel':'Y','blocks':3,'threads':160,'at':'1.5s','block_time':'1s'}]}");
    sim_config cfg = config_of(s, 0);
    assert_int_equal(cfg.seed, 7);
    assert_int_equal(cfg.nops, 2);
    assert_int_equal(cfg.ops[0].nblock_time, 5);
    for (int i = 0; i < 5; i++)
        assert_int_equal(cfg.ops[0].block_time[i], (i + 1) * INT64_C(1000000000));
    assert_int_equal(cfg.ops[0].blocks, 5);
    assert_int_equal(cfg.ops[0].threads, 256);
    assert_int_equal(cfg.ops[0].smem, 0);
    assert_int_equal(cfg.ops[0].regs, 0);
    assert_int_equal(cfg.ops[1].at, INT64_C(1500000000));
    assert_int_equal(cfg.ops[1].nblock_time, 1);
    assert_int_equal(cfg.ops[1].block_time[0], INT64_C(1000000000));
    scn_free(s);
}

static void test_parse_file(void **state) {
    (void)state;
    scn_scenario *s = (scn_scenario *)&state;
    char err[512];
    assert_int_equal(scn_parse_file("/nonexistent/x.json", &s, err, sizeof err), -1);
    assert_null(s);
    assert_string_equal(err, "/nonexistent/x.json: cannot open: No such file or directory");

    /* mkstemp's template: the six trailing dots become its six 'X's */
    char path[] = "/tmp/test_scenario_......";
    for (char *p = strchr(path, '.'); p && *p; p++)
        *p = 'X';
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fputs("{\"schema\": \"schedlab-scenario/1\",\n \"device\": \"tx2\",\n"
          " \"ops\": [{\"kernel\": \"K\", \"blocks\": 1, \"threads\": 1, \"block_time\": 1,}]}",
          f);
    fclose(f);
    assert_int_equal(scn_parse_file(path, &s, err, sizeof err), -1);
    char want[256];
    snprintf(want, sizeof want, "%s:3:69: JSON: string or '}' expected near '}'", path);
    assert_string_equal(err, want);
    remove(path);
}

/* The memory system's op keys (issue 25): access patterns into sectors,
 * store, footprint, scope, managed, fu; bad values name the place. */
static void test_program_access(void **state) {
    (void)state;
    /* on v100 with an L2 and unified memory: "footprint" and "scope" are a
     * cache's to read (simcore/exec_warp.c ws_where: L1, L2 or a managed
     * op's pages), "managed" unified memory's (EW_X_MANAGED: uvm_page) */
    scn_scenario *s = parse_ok(one_kernel("{'preset':'v100','l2_kb':6144,'l2_assoc':16,"
                                          "'latency_l2':160,'uvm_page_kb':64,"
                                          "'uvm_fault_latency':1000}",
        "'program':{'body':[{'op':'alu','fu':'fp32'},{'op':'mem','access':'strided:2'},"
        "{'op':'mem','access':'random','store':true,'footprint':'4KB','scope':'block'},"
        "{'op':'mem','access':'coalesced','managed':true,'scope':'kernel'},"
        "{'op':'mem','access':'strided:9'},{'op':'mem','access':7}]}"));
    sim_config cfg = config_of(s, 0);
    const sim_access *a = cfg.ops[0].program->access;
    assert_non_null(a);
    assert_int_equal(a[0].fp32, 1);
    assert_int_equal(a[1].sectors, 8);
    assert_int_equal(a[2].sectors, 32);
    assert_int_equal(a[2].store, 1);
    assert_int_equal(a[2].footprint, 4096);
    assert_int_equal(a[2].scope, SIM_SCOPE_BLOCK);
    assert_int_equal(a[3].sectors, 4);
    assert_int_equal(a[3].managed, 1);
    assert_int_equal(a[3].scope, SIM_SCOPE_KERNEL);
    assert_int_equal(a[4].sectors, 32);
    assert_int_equal(a[5].sectors, 7);
    scn_free(s);
    /* a program without those keys has none */
    s = parse_ok(one_kernel("{'preset':'titanv-gpgpusim'}", "'program':{'body':[{'op':'mem'}]}"));
    cfg = config_of(s, 0);
    assert_null(cfg.ops[0].program->access);
    scn_free(s);
    expect_error(one_kernel("{'preset':'titanv-gpgpusim'}",
                            "'program':{'body':[{'op':'mem','access':'strided:0'}]}"),
                 "t.json: ops[0].program.body[0].access: \"strided:0\" is not an access pattern "
                 "(coalesced, strided:N with N in 1..1024, random, or a number of sectors)");
    expect_error(one_kernel("{'preset':'titanv-gpgpusim'}",
                            "'program':{'body':[{'op':'alu','access':'random'}]}"),
                 "t.json: ops[0].program.body[0].access: only a mem op has an access pattern");
    expect_error(one_kernel("{'preset':'titanv-gpgpusim'}",
                            "'program':{'body':[{'op':'alu','fu':'fp64'}]}"),
                 "t.json: ops[0].program.body[0].fu: \"fp64\" is not a functional unit the model "
                 "knows (fp32)");
    expect_error(one_kernel("{'preset':'titanv-gpgpusim'}",
                            "'program':{'body':[{'op':'mem','scope':'grid'}]}"),
                 "t.json: ops[0].program.body[0].scope: \"grid\" is not a scope (warp, block or "
                 "kernel)");
    expect_error(one_kernel("{'preset':'titanv-gpgpusim'}",
                            "'program':{'body':[{'op':'mem','store':1}]}"),
                 "t.json: ops[0].program.body[0].store: must be true or false, not an integer");
}

/* ---- "reference": the paper's numbers beside the runs' --------------------- */

/* Two kernels and a variant, with `rows` as the reference block's rows. */
static char *with_reference(const char *rows) {
    static char buf[2048];
    snprintf(buf, sizeof buf,
             "{'schema':'schedlab-scenario/1','device':'tx2',"
             "'ops':[{'kernel':'A','blocks':2,'threads':256,'block_time':'1ms'},"
             "{'kernel':'B','blocks':2,'threads':256,'block_time':'1ms'}],"
             "'variants':[{'name':'round-robin','policy':{'placement':'round-robin'}}],"
             "'reference':{'source':'a paper, Table 1','rows':[%s]}}",
             rows);
    return buf;
}

/* One rule for the optional lists (docs/scenario-format.md Top level): an
 * empty "streams", "tasks" or "variants" is the key left out; "ops",
 * needed without tasks, needs one entry. */
static void test_empty_lists(void **state) {
    (void)state;
    const char *k = "'ops':[{'kernel':'K1','blocks':2,'threads':256,'block_time':'1ms'}]";
    char buf[1024];
    static const char *const lists[] = {"streams", "tasks", "variants"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(buf, sizeof buf, "{'schema':'schedlab-scenario/1','device':'tx2',%s,'%s':[]}", k,
                 lists[i]);
        scn_scenario *s = parse_ok(buf);
        assert_int_equal(scn_run_count(s), 1);
        sim_config cfg = config_of(s, 0);
        assert_int_equal(cfg.ntasks, 0);
        assert_int_equal(cfg.nops, 1);
        scn_free(s);
    }
    /* as without "tasks": nothing reads "cpus" */
    snprintf(buf, sizeof buf, "{'schema':'schedlab-scenario/1','device':'tx2',%s,'cpus':2,"
             "'tasks':[]}", k);
    expect_error(buf, "t.json: cpus: gives the real-time tasks' cores, and this scenario has no "
                      "\"tasks\"");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2','tasks':[]}",
                 "t.json: ops: missing (the kernels, copies and syncs to run, or \"tasks\")");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2','ops':[],'streams':[]}",
                 "t.json: ops: is empty; give at least one kernel or copy");
}

/* Kernel names may repeat (an op's name is "shown in traces", not a key:
 * docs/scenario-format.md Ops), but a reference row's kernel and a
 * variant's budget name one kernel: a name of several is refused with
 * the ops it names; a name of one is taken as before. */
static void test_ambiguous_kernel_names(void **state) {
    (void)state;
    const char *dup = "{'schema':'schedlab-scenario/1','device':'%s','ops':["
                      "{'kernel':'A','blocks':2,'threads':256,%s},"
                      "{'kernel':'B','blocks':2,'threads':256,%s},"
                      "{'kernel':'A','blocks':1,'threads':256,%s}],%s}";
    char buf[2048];
    const char *bt = "'block_time':'1ms'";
    snprintf(buf, sizeof buf, dup, "tx2", bt, bt, bt,
             "'reference':{'source':'s','rows':[{'label':'x','ratio':['B','A'],'reported':1}]}");
    expect_error(buf, "t.json: reference.rows[0].ratio[1]: kernel \"A\" names several ops (ops[0], "
                      "ops[2]); a row names one kernel: give them distinct names");
    snprintf(buf, sizeof buf, dup, "tx2", bt, bt, bt,
             "'reference':{'source':'s','rows':[{'label':'x','start':{'run':'default','kernel':'A'},"
             "'reported':1}]}");
    expect_error(buf, "t.json: reference.rows[0].start.kernel: kernel \"A\" names several ops "
                      "(ops[0], ops[2]); a row names one kernel: give them distinct names");
    snprintf(buf, sizeof buf, dup, "tx2", bt, bt, bt,
             "'reference':{'source':'s','rows':[{'label':'x','end':'B','reported':1}]}");
    scn_free(parse_ok(buf));
    const char *pg = "'program':{'body':[{'op':'alu'}]}";
    snprintf(buf, sizeof buf, dup, "titanv-gpgpusim", pg, pg, pg,
             "'policy':{'warp':'qaws'},'variants':[{'name':'b','budgets':{'A':3}}]");
    expect_error(buf, "t.json: variants[0].budgets.A: kernel \"A\" names several ops (ops[0], "
                      "ops[2]); a budget is one kernel's: give them distinct names");
    snprintf(buf, sizeof buf, dup, "titanv-gpgpusim", pg, pg, pg,
             "'policy':{'warp':'qaws'},'variants':[{'name':'b','budgets':{'B':3}}]");
    scn_free(parse_ok(buf));
}

/* A name the scenario does not have, one typo from one it has, is refused
 * with that name (docs/scenario-format.md: errors come "with a 'did you
 * mean' hint"), as a preset, policy, key or library kernel always was: a
 * reference row's kernel, run and task, a variant's budget's kernel, an
 * op's stream. A name as near two of them ("K3" beside K1 and K2) or with
 * every letter changed ("C" beside A and B) gets none. */
static void test_names_near(void **state) {
    (void)state;
    expect_error(with_reference("{'label':'x','ratio':['A','Bb'],'reported':1}"),
                 "t.json: reference.rows[0].ratio[1]: no kernel named \"Bb\" in the scenario's ops "
                 "(did you mean \"B\"?)");
    expect_error(with_reference("{'label':'x','run':'round-robbin','ratio':['A','B'],'reported':1}"),
                 "t.json: reference.rows[0].run: no run named \"round-robbin\" in the scenario (did "
                 "you mean \"round-robin\"?)");
    expect_error(with_reference("{'label':'x','ratio':[{'run':'most-rom','kernel':'A'},'B'],"
                                "'reported':1}"),
                 "t.json: reference.rows[0].ratio[0].run: no run named \"most-rom\" in the scenario "
                 "(did you mean \"most-room\"?)");
    expect_error("{'schema':'schedlab-scenario/1','device':'xavier-nx','tasks':[{'name':'render',"
                 "'priority':5,'period':'10ms','segments':[{'cpu':'1ms'}]}],"
                 "'reference':{'source':'s','rows':[{'label':'x','mort':'rendr','reported':1}]}}",
                 "t.json: reference.rows[0].mort: no task named \"rendr\" in the scenario's tasks "
                 "(did you mean \"render\"?)");
    const char *two = "{'schema':'schedlab-scenario/1','device':'titanv-gpgpusim',"
                      "'streams':[{'name':'S1'},{'name':'S2'}],'ops':["
                      "{'kernel':'K1','stream':'S1','blocks':1,'threads':32,"
                      "'program':{'body':[{'op':'alu'}]}},"
                      "{'kernel':'K2','stream':'%s','blocks':1,'threads':32,"
                      "'program':{'body':[{'op':'alu'}]}}],"
                      "'policy':{'warp':'qaws'},'variants':[{'name':'v','budgets':{'%s':2}}]}";
    char buf[1024];
    snprintf(buf, sizeof buf, two, "S2", "K22");
    expect_error(buf, "t.json: variants[0].budgets.K22: no kernel named \"K22\" in ops (did you "
                      "mean \"K2\"?)");
    snprintf(buf, sizeof buf, two, "S2", "K3");
    expect_error(buf, "t.json: variants[0].budgets.K3: no kernel named \"K3\" in ops");
    snprintf(buf, sizeof buf, two, "s2", "K2");
    expect_error(buf, "t.json: ops[1].stream: no stream named \"s2\" (did you mean \"S2\"? streams: "
                      "S1, S2)");
    snprintf(buf, sizeof buf, two, "nul", "K2");
    expect_error(buf, "t.json: ops[1].stream: no stream named \"nul\" (did you mean \"null\"? "
                      "streams: S1, S2)");
    snprintf(buf, sizeof buf, two, "S3", "K2");
    expect_error(buf, "t.json: ops[1].stream: no stream named \"S3\" (streams: S1, S2)");
}

static void test_reference(void **state) {
    (void)state;
    /* every kind of row, names the scenario has (the base run is "most-room") */
    scn_free(parse_ok(with_reference(
        "{'label':'A over B','ratio':['A','B'],'reported':2.5,'within':1.5},"
        "{'label':'A, rr over most-room','ratio':[{'run':'round-robin','kernel':'A'},"
        "{'run':'most-room','kernel':'A'}],'below':1},"
        "{'label':'B over A','run':'round-robin','ratio':['B','A'],'above':0}")));
    /* the simulator ignores it: the runs are those without it */
    scn_scenario *s = parse_ok(with_reference("{'label':'x','ratio':['A','B'],'reported':1}"));
    assert_int_equal(scn_run_count(s), 2);
    scn_free(s);
    expect_error(with_reference("{'label':'x','ratio':['A','C'],'reported':1}"),
                 "t.json: reference.rows[0].ratio[1]: no kernel named \"C\" in the scenario's ops");
    expect_error(with_reference("{'label':'x','ratio':[{'run':'rr','kernel':'A'},'B'],'reported':1}"),
                 "t.json: reference.rows[0].ratio[0].run: no run named \"rr\" in the scenario (the base "
                 "run or a variant)");
    expect_error(with_reference("{'label':'x','run':'default','ratio':['A','B'],'reported':1}"),
                 "t.json: reference.rows[0].run: no run named \"default\" in the scenario (the base run "
                 "or a variant)");
    expect_error(with_reference("{'label':'x','ratio':['A','B']}"),
                 "t.json: reference.rows[0]: missing \"reported\" (the source's number) or, for a "
                 "direction, \"below\"/\"above\"");
    expect_error(with_reference("{'label':'x','ratio':['A'],'reported':1}"),
                 "t.json: reference.rows[0].ratio: must be [kernel, kernel]: the first's time over the "
                 "second's");
    expect_error(with_reference("{'label':'x','ratio':['A','B'],'mort':'t1','reported':1}"),
                 "t.json: reference.rows[0]: gives \"ratio\" and \"mort\": a row compares one thing");
    expect_error(with_reference("{'label':'x','reported':1}"),
                 "t.json: reference.rows[0]: needs one of \"ratio\" (two kernels), \"mort\" (a task), "
                 "\"start\", \"end\" or \"sms\" (a kernel)");
    /* a kernel's first block or end (ms), its blocks' SMs */
    scn_free(parse_ok(with_reference(
        "{'label':'A starts','start':'A','reported':0,'within_ms':0},"
        "{'label':'B ends','run':'round-robin','end':{'run':'most-room','kernel':'B'},'reported':1},"
        "{'label':'A on','sms':'A','reported':[0,1]}")));
    expect_error(with_reference("{'label':'x','sms':'A','reported':[0,-1]}"),
                 "t.json: reference.rows[0].reported[1]: -1 must be at least 0");
    expect_error(with_reference("{'label':'x','sms':'A','reported':2}"),
                 "t.json: reference.rows[0].reported: must be the SM of each block, in block order: 1 to "
                 "4096 SM numbers");
    expect_error(with_reference("{'label':'x','start':'Z','reported':1}"),
                 "t.json: reference.rows[0].start: no kernel named \"Z\" in the scenario's ops");
    expect_error(with_reference("{'label':'x','sms':'A','reported':[0],'within_ms':1}"),
                 "t.json: reference.rows[0].within_ms: is for a time in ms (a \"mort\", \"start\" or "
                 "\"end\" row)");
    expect_error(with_reference("{'label':'x','start':'A','below':1}"),
                 "t.json: reference.rows[0]: \"below\" is for a ratio; this row gives \"reported\"");
    expect_error(with_reference("{'label':'x','mort':'t1','reported':1}"),
                 "t.json: reference.rows[0].mort: no task named \"t1\" in the scenario's tasks");
    expect_error(with_reference("{'label':'x','ratio':['A','B'],'reported':0}"),
                 "t.json: reference.rows[0].reported: 0 must be more than 0");
    expect_error(with_reference("{'label':'x','ratio':['A','B'],'reported':2,'within':1}"),
                 "t.json: reference.rows[0].within: 1 must be more than 1");
    expect_error(with_reference("{'label':'x','ratio':['A','B'],'below':1,'within':2}"),
                 "t.json: reference.rows[0].within: is a factor of a ratio row's \"reported\" number");
    expect_error(with_reference("{'label':'x','ratio':['A','B'],'reportd':1}"),
                 "t.json: reference.rows[0]: unknown key \"reportd\" (did you mean \"reported\"?)");
    expect_error(with_reference("{'ratio':['A','B'],'reported':1}"),
                 "t.json: reference.rows[0]: missing \"label\" (what the row compares, in words)");
    expect_error(with_reference(""), "t.json: reference.rows: must hold 1 to 64 rows, not 0");
}

/* The reference block's bounds and the rest of its rules, each with its
 * message (docs/scenario-format.md, "reference"). */
static void test_reference_edges(void **state) {
    (void)state;
    expect_error(with_reference("{'label':'x','ratio':[{'kernel':'A'},'B'],'reported':1}"),
                 "t.json: reference.rows[0].ratio[0]: needs \"run\" and \"kernel\" (or give the "
                 "kernel's name alone)");
    expect_error(with_reference("{'label':'x','ratio':['A','B','A'],'reported':1}"),
                 "t.json: reference.rows[0].ratio: must be [kernel, kernel]: the first's time over the "
                 "second's");
    expect_error(with_reference("{'label':'x','ratio':['A','B'],'below':2,'above':1}"),
                 "t.json: reference.rows[0]: give \"below\" or \"above\", not both");
    expect_error(with_reference("{'label':'x','ratio':['A','B'],'below':0}"),
                 "t.json: reference.rows[0].below: 0 must be more than 0");
    scn_free(parse_ok(with_reference("{'label':'x','ratio':['A','B'],'above':0}")));
    scn_free(parse_ok(with_reference("{'label':'x','end':'B','reported':2,'within_ms':0.5}")));
    expect_error(with_reference("{'label':'x','sms':'A','reported':[]}"),
                 "t.json: reference.rows[0].reported: must be the SM of each block, in block order: 1 to "
                 "4096 SM numbers");
    scn_free(parse_ok(with_reference("{'label':'x','sms':'A','reported':[4095]}")));
    expect_error(with_reference("{'label':'x','sms':'A','reported':[4096]}"),
                 "t.json: reference.rows[0].reported[0]: 4096 is more than 4095, the most this build "
                 "accepts");
    const char *head = "{'schema':'schedlab-scenario/1','device':'tx2',"
                       "'ops':[{'kernel':'A','blocks':2,'threads':256,'block_time':'1ms'}],"
                       "'reference':";
    char buf[512];
    snprintf(buf, sizeof buf, "%s{'rows':[{'label':'x','start':'A','reported':1}]}}", head);
    expect_error(buf, "t.json: reference: missing \"source\" (the paper and its table or figure, or "
                      "the recording)");
    snprintf(buf, sizeof buf, "%s{'source':'s'}}", head);
    expect_error(buf, "t.json: reference: missing \"rows\"");
    /* 4,096 SMs listed, then 4,097; 64 rows, then 65 */
    size_t cap = 40000;
    char *big = malloc(cap), *rows = malloc(cap);
    assert_non_null(big);
    assert_non_null(rows);
    for (int n = 4096; n <= 4097; n++) {
        size_t o = (size_t)snprintf(rows, cap, "{'label':'x','sms':'A','reported':[0");
        for (int i = 1; i < n; i++) o += (size_t)snprintf(rows + o, cap - o, ",0");
        snprintf(rows + o, cap - o, "]}");
        snprintf(big, cap, "%s{'source':'s','rows':[%s]}}", head, rows);
        if (n == 4096) scn_free(parse_ok(big));
        else expect_error(big, "t.json: reference.rows[0].reported: must be the SM of each block, "
                               "in block order: 1 to 4096 SM numbers");
    }
    for (int n = 64; n <= 65; n++) {
        size_t o = 0;
        for (int i = 0; i < n; i++)
            o += (size_t)snprintf(rows + o, cap - o, "%s{'label':'x','start':'A','reported':1}",
                                  i ? "," : "");
        snprintf(big, cap, "%s{'source':'s','rows':[%s]}}", head, rows);
        if (n == 64) scn_free(parse_ok(big));
        else expect_error(big, "t.json: reference.rows: must hold 1 to 64 rows, not 65");
    }
    free(big);
    free(rows);
}

/* What would change nothing, or be what CUDA cannot do, is refused
 * (found by a helper writing scenarios as a user): a QAWS budget on a
 * kernel of fixed block_time (a budget counts warp instructions, QAWS
 * §IV), in the op or a variant, and a declared "null" stream (each
 * process has its NULL stream, TX2 paper §4.1; declared, it took a
 * priority CUDA cannot give it). */
static void test_refused_no_effect(void **state) {
    (void)state;
    expect_error(one_kernel("'tx2'", "'block_time':'1ms','budget':3"),
                 "t.json: ops[0].budget: kernel \"K1\" runs for a fixed block_time; a budget counts "
                 "warp instructions and needs a \"program\" (the warp-level model)");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2',"
                 "'ops':[{'kernel':'K1','blocks':2,'threads':256,'block_time':'1ms'}],"
                 "'variants':[{'name':'b','policy':{'warp':'qaws'},'budgets':{'K1':3}}]}",
                 "t.json: variants[0].budgets.K1: kernel \"K1\" runs for a fixed block_time; a budget "
                 "counts warp instructions and needs a \"program\" (the warp-level model)");
    /* a warp policy where no kernel has a program (docs/scenario-format.md
     * Policy: "the warp scheduler of every sub-core, for kernels with a
     * program"): every block runs its block_time whatever it says */
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2','policy':{'warp':'qaws'},"
                 "'ops':[{'kernel':'K1','blocks':2,'threads':256,'block_time':'1ms'}]}",
                 "t.json: policy.warp: \"qaws\" schedules the warps of kernels with a \"program\" "
                 "(the warp-level model); every kernel here runs for a fixed block_time, on which a "
                 "warp policy has no effect");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2',"
                 "'ops':[{'kernel':'K1','blocks':2,'threads':256,'block_time':'1ms'}],"
                 "'variants':[{'name':'rr','policy':{'placement':'round-robin'}},"
                 "{'name':'q','policy':{'warp':'quota-naive'}}]}",
                 "t.json: variants[1].policy.warp: \"quota-naive\" schedules the warps of kernels "
                 "with a \"program\" (the warp-level model); every kernel here runs for a fixed "
                 "block_time, on which a warp policy has no effect");
    /* "cpus" and "duration" are the real-time tasks' (docs/scenario-format.md
     * Real-time tasks); without tasks the ops ran to their end whatever
     * "duration" said */
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2','duration':'1ms',"
                 "'ops':[{'kernel':'K1','blocks':2,'threads':256,'block_time':'5ms'}]}",
                 "t.json: duration: bounds when the real-time tasks release jobs (ops run to their "
                 "end), and this scenario has no \"tasks\"");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2','cpus':4,'tasks':null,"
                 "'ops':[{'kernel':'K1','blocks':2,'threads':256,'block_time':'5ms'}]}",
                 "t.json: cpus: gives the real-time tasks' cores, and this scenario has no "
                 "\"tasks\"");
    scn_free(parse_ok("{'schema':'schedlab-scenario/1','device':'tx2','cpus':4,'duration':null,"
                      "'tasks':[{'name':'a','cpu':3,'priority':10,'period':'50ms',"
                      "'segments':[{'cpu':'1ms'}]}]}"));
    /* the runlist's keys under contexts "shared" (docs/scenario-format.md
     * Policy: time_slice and context_switch are the TSG round robin's,
     * runlist_update GCAPS's ε): no run reads them */
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2','policy':{'time_slice':'2ms'},"
                 "'ops':[{'kernel':'K1','blocks':2,'threads':256,'block_time':'1ms'}]}",
                 "t.json: policy.time_slice: is the runlist's, read under contexts \"time-slice\", "
                 "\"gcaps\", \"fmlp+\" or \"mpcp\"; this run has contexts \"shared\" (one order "
                 "across processes, no runlist), on which it has no effect");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2','policy':{'context_switch':'1us'},"
                 "'ops':[{'kernel':'K1','blocks':2,'threads':256,'block_time':'1ms'}],"
                 "'variants':[{'name':'rr','policy':{'placement':'round-robin'}}]}",
                 "t.json: policy.context_switch: is the runlist's, read under contexts "
                 "\"time-slice\", \"gcaps\", \"fmlp+\" or \"mpcp\"; every run it reaches has "
                 "contexts \"shared\" (one order across processes, no runlist), on which it has no "
                 "effect");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2','policy':{'contexts':'time-slice'},"
                 "'ops':[{'kernel':'K1','blocks':2,'threads':256,'block_time':'1ms'}],"
                 "'variants':[{'name':'s','policy':{'contexts':'shared','runlist_update':'1us'}}]}",
                 "t.json: variants[0].policy.runlist_update: is the runlist's, read under contexts "
                 "\"time-slice\", \"gcaps\", \"fmlp+\" or \"mpcp\"; this run has contexts "
                 "\"shared\" (one order across processes, no runlist), on which it has no effect");
    /* context_switch_idle (simcore/tsg.c) and ioctl_bookkeeping (a GCAPS
     * macro's, simcore/host_tasks.c) likewise: docs/scenario-format.md
     * Policy gives both to the runlist */
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2','policy':"
                 "{'context_switch_idle':'0us'},'ops':[{'kernel':'K1','blocks':2,'threads':256,"
                 "'block_time':'1ms'}]}",
                 "t.json: policy.context_switch_idle: is the runlist's, read under contexts "
                 "\"time-slice\", \"gcaps\", \"fmlp+\" or \"mpcp\"; this run has contexts "
                 "\"shared\" (one order across processes, no runlist), on which it has no effect");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2','policy':"
                 "{'ioctl_bookkeeping':'38us'},'ops':[{'kernel':'K1','blocks':2,'threads':256,"
                 "'block_time':'1ms'}],'variants':[{'name':'rr','policy':{'placement':"
                 "'round-robin'}}]}",
                 "t.json: policy.ioctl_bookkeeping: is a GCAPS macro's (the cost of a "
                 "gcapsGpuSegBegin/End that leaves the runlist as it is), read under contexts "
                 "\"gcaps\" alone; every run it reaches has contexts \"shared\" (no GCAPS "
                 "macro), on which it has no effect");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2','policy':{'contexts':'gcaps'},"
                 "'ops':[{'kernel':'K1','blocks':2,'threads':256,'block_time':'1ms'}],"
                 "'variants':[{'name':'s','policy':{'contexts':'shared','ioctl_bookkeeping':'38us'}}]}",
                 "t.json: variants[0].policy.ioctl_bookkeeping: is a GCAPS macro's (the cost of a "
                 "gcapsGpuSegBegin/End that leaves the runlist as it is), read under contexts "
                 "\"gcaps\" alone; this run has contexts \"shared\" (no GCAPS macro), on which "
                 "it has no effect");
    /* ioctl_bookkeeping is read under gcaps alone (simcore/host_tasks.c:
     * only a driver with segment_switches; no analysis reads it): under
     * time-slice, fmlp+ and mpcp it is refused too */
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2','policy':{'contexts':"
                 "'time-slice','ioctl_bookkeeping':'38us'},'ops':[{'kernel':'K1','blocks':2,"
                 "'threads':256,'block_time':'1ms'}]}",
                 "t.json: policy.ioctl_bookkeeping: is a GCAPS macro's (the cost of a "
                 "gcapsGpuSegBegin/End that leaves the runlist as it is), read under contexts "
                 "\"gcaps\" alone; this run has contexts \"time-slice\" (no GCAPS macro), on "
                 "which it has no effect");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2','policy':{'contexts':"
                 "'fmlp+','ioctl_bookkeeping':'38us'},'ops':[{'kernel':'K1','blocks':2,"
                 "'threads':256,'block_time':'1ms'}],'variants':[{'name':'m','policy':"
                 "{'contexts':'mpcp'}},{'name':'s','policy':{'contexts':'shared'}}]}",
                 "t.json: policy.ioctl_bookkeeping: is a GCAPS macro's (the cost of a "
                 "gcapsGpuSegBegin/End that leaves the runlist as it is), read under contexts "
                 "\"gcaps\" alone; every run it reaches has contexts \"shared\", \"fmlp+\" "
                 "or \"mpcp\" (no GCAPS macro), on which it has no effect");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2','policy':{'contexts':'gcaps'},"
                 "'ops':[{'kernel':'K1','blocks':2,'threads':256,'block_time':'1ms'}],"
                 "'variants':[{'name':'m','policy':{'contexts':'mpcp','ioctl_bookkeeping':'38us'}}]}",
                 "t.json: variants[0].policy.ioctl_bookkeeping: is a GCAPS macro's (the cost of a "
                 "gcapsGpuSegBegin/End that leaves the runlist as it is), read under contexts "
                 "\"gcaps\" alone; this run has contexts \"mpcp\" (no GCAPS macro), on which "
                 "it has no effect");
    /* a base time-slice run's value reaching a gcaps variant parses
     * (scenarios/gcaps-case-study-variation.json), as does a gcaps base's
     * beside an fmlp+ variant */
    scn_free(parse_ok("{'schema':'schedlab-scenario/1','device':'tx2','policy':{'contexts':"
                      "'time-slice','ioctl_bookkeeping':'38us'},'ops':[{'kernel':'K1','blocks':2,"
                      "'threads':256,'block_time':'1ms'}],'variants':[{'name':'f','policy':"
                      "{'contexts':'fmlp+'}},{'name':'g','policy':{'contexts':'gcaps'}}]}"));
    scn_free(parse_ok("{'schema':'schedlab-scenario/1','device':'tx2','policy':{'contexts':"
                      "'gcaps','ioctl_bookkeeping':'38us'},'ops':[{'kernel':'K1','blocks':2,"
                      "'threads':256,'block_time':'1ms'}],'variants':[{'name':'f','policy':"
                      "{'contexts':'fmlp+'}}]}"));
    /* the base's reaches a gcaps variant (gcaps-case-study-variation's shape) */
    scn_free(parse_ok("{'schema':'schedlab-scenario/1','device':'tx2','policy':"
                      "{'ioctl_bookkeeping':'38us','context_switch_idle':'0us'},'ops':[{'kernel':"
                      "'K1','blocks':2,'threads':256,'block_time':'1ms'}],'variants':[{'name':'g',"
                      "'policy':{'contexts':'gcaps'}}]}"));
    /* a base's time_slice reaches a variant that slices; a base that slices
     * keeps its own beside a shared variant (tx2-appendix-a-processes) */
    scn_free(parse_ok("{'schema':'schedlab-scenario/1','device':'tx2','policy':{'time_slice':'2ms'},"
                      "'ops':[{'kernel':'K1','blocks':2,'threads':256,'block_time':'1ms'}],"
                      "'variants':[{'name':'ts','policy':{'contexts':'time-slice'}}]}"));
    scn_free(parse_ok("{'schema':'schedlab-scenario/1','device':'tx2','policy':{'contexts':"
                      "'time-slice','time_slice':'1ms'},'ops':[{'kernel':'K1','blocks':2,"
                      "'threads':256,'block_time':'1ms'}],'variants':[{'name':'sh','policy':"
                      "{'contexts':'shared'}}]}"));
    /* a mem op's access without the memory system (docs/scenario-format.md
     * Warp-level timing: "With the device's memory system on ... a mem op
     * may add \"access\""; Device: dram_sectors > 0 turns it on) */
    const char *acc = "{'schema':'schedlab-scenario/1','device':'%s','ops':[{'kernel':'K1',"
                      "'blocks':1,'threads':32,'program':{'body':[{'op':'alu'},{'op':'mem',"
                      "'access':'random'}]}}]%s}";
    char ab[1024];
    snprintf(ab, sizeof ab, acc, "titanv-gpgpusim", "");
    expect_error(ab, "t.json: ops[0].program.body[1].access: says how the op's addresses fall into "
                     "the sectors of the device's memory system, which is off here "
                     "(device.dram_sectors is 0): every mem op costs latency_mem, on which it has "
                     "no effect");
    snprintf(ab, sizeof ab, acc, "titanv-gpgpusim",
             ",'variants':[{'name':'q','policy':{'warp':'qaws'}}]");
    expect_error(ab, "t.json: ops[0].program.body[1].access: says how the op's addresses fall into "
                     "the sectors of the device's memory system, which is off here "
                     "(device.dram_sectors is 0 in every run): every mem op costs latency_mem, on "
                     "which it has no effect");
    /* on with the device, or a variant's */
    snprintf(ab, sizeof ab, acc, "v100", "");
    scn_free(parse_ok(ab));
    snprintf(ab, sizeof ab, acc, "titanv-gpgpusim", ",'variants':[{'name':'m','device':'v100'}]");
    scn_free(parse_ok(ab));
    /* so are "store", "footprint", "scope" and "managed" (the docs' body
     * row gives them with "access"; simcore/exec_warp.c reads them only
     * with dram_sectors), "store": false and "scope": "warp" too, as
     * "access": "coalesced" is */
    static const struct { const char *key, *what; } mk[] = {
        {"'store':true", "store: makes the op a store, whose warp goes on after issue in the "
                         "device's memory system"},
        {"'store':false", "store: makes the op a store, whose warp goes on after issue in the "
                          "device's memory system"},
        {"'footprint':'64KB'", "footprint: gives the working set the op walks in the caches of "
                               "the device's memory system"},
        {"'scope':'warp'", "scope: says whose working set the op walks in the caches of the "
                           "device's memory system"},
        {"'scope':'kernel'", "scope: says whose working set the op walks in the caches of the "
                             "device's memory system"},
        {"'managed':true", "managed: puts the op's data in unified memory, whose pages the "
                           "device's memory system migrates"},
    };
    const char *mkf = "{'schema':'schedlab-scenario/1','device':%s,'ops':[{'kernel':'K1',"
                      "'blocks':1,'threads':32,'program':{'body':[{'op':'alu'},{'op':'mem',"
                      "%s}]}}]%s}";
    /* the working set's keys are read with a cache (below) */
    const char *v100_l2 = "{'preset':'v100','l2_kb':6144,'l2_assoc':16,'latency_l2':160}";
    /* and "managed" with unified memory (below) */
    const char *v100_uvm = "{'preset':'v100','uvm_page_kb':64,'uvm_fault_latency':1000}";
    for (size_t i = 0; i < sizeof mk / sizeof mk[0]; i++) {
        char want[512];
        snprintf(ab, sizeof ab, mkf, "'titanv-gpgpusim'", mk[i].key, "");
        snprintf(want, sizeof want, "t.json: ops[0].program.body[1].%s, which is off here "
                 "(device.dram_sectors is 0): every mem op costs latency_mem, on which it has no "
                 "effect", mk[i].what);
        expect_error(ab, want);
        snprintf(ab, sizeof ab, mkf, "'titanv-gpgpusim'", mk[i].key,
                 ",'variants':[{'name':'q','policy':{'warp':'qaws'}}]");
        snprintf(want, sizeof want, "t.json: ops[0].program.body[1].%s, which is off here "
                 "(device.dram_sectors is 0 in every run): every mem op costs latency_mem, on "
                 "which it has no effect", mk[i].what);
        expect_error(ab, want);
        const char *on = strstr(mk[i].key, "footprint") || strstr(mk[i].key, "scope") ? v100_l2
                       : strstr(mk[i].key, "managed") ? v100_uvm : "'v100'";
        snprintf(ab, sizeof ab, mkf, on, mk[i].key, "");
        scn_free(parse_ok(ab));
        char var[256];
        snprintf(var, sizeof var, ",'variants':[{'name':'m','device':%s}]", on);
        snprintf(ab, sizeof ab, mkf, "'titanv-gpgpusim'", mk[i].key, var);
        scn_free(parse_ok(ab));
    }
    /* "store": false on another op is no mem op's setting */
    snprintf(ab, sizeof ab, "{'schema':'schedlab-scenario/1','device':'titanv-gpgpusim','ops':"
             "[{'kernel':'K1','blocks':1,'threads':32,'program':{'body':[{'op':'alu',"
             "'store':false}]}}]}");
    scn_free(parse_ok(ab));
    /* an alu op's "fu": "fp32" without the fp32 pipes (Device fp32_rate:
     * "0 = not modelled"; simcore/exec_warp.c marks an instruction for the
     * pipe only with it, EW_X_FP32 needing fp_iv) */
    const char *fuf = "{'schema':'schedlab-scenario/1','device':%s,'ops':[{'kernel':'K1',"
                      "'blocks':1,'threads':32,'program':{'body':[{'op':'mem'},{'op':'alu',"
                      "'fu':'fp32'}]}}]%s}";
    snprintf(ab, sizeof ab, fuf, "'titanv-gpgpusim'", "");
    expect_error(ab, "t.json: ops[0].program.body[1].fu: runs the op on the sub-core's fp32 pipe, "
                     "which is not modelled here (device.fp32_rate is 0): every alu op costs "
                     "latency_alu, on which it has no effect");
    snprintf(ab, sizeof ab, fuf, "'titanv-gpgpusim'", ",'variants':[{'name':'h','device':'h100'}]");
    expect_error(ab, "t.json: ops[0].program.body[1].fu: runs the op on the sub-core's fp32 pipe, "
                     "which is not modelled here (device.fp32_rate is 0 in every run): every alu "
                     "op costs latency_alu, on which it has no effect");
    /* modelled by the device, or a variant's (most-room-h100-compute gives
     * h100 fp32_rate 1) */
    snprintf(ab, sizeof ab, fuf, "'v100'", "");
    scn_free(parse_ok(ab));
    snprintf(ab, sizeof ab, fuf, "{'preset':'h100','fp32_rate':1}", "");
    scn_free(parse_ok(ab));
    snprintf(ab, sizeof ab, fuf, "'titanv-gpgpusim'", ",'variants':[{'name':'m','device':'v100'}]");
    scn_free(parse_ok(ab));
    /* a library kernel's program keeps its "fu" (vectorAdd's alu entry) */
    parse_ok_with_library("{'schema':'schedlab-scenario/1','device':'titanv-gpgpusim','ops':"
                          "[{'kernel':'K1','blocks':1,'threads':32,'program':'vectorAdd'}]}");
    /* a mem op's "footprint" and "scope" with the memory system on but
     * nothing that reads the working set: no L1 (l1_smem_kb), no L2 (l2_kb)
     * and, for a managed op, no unified memory (uvm_page_kb); simcore/
     * exec_warp.c ws_where is called from l1_access, l2_addrs, uvm_touch
     * and uvm_wait alone. v100 as shipped is such a device. */
    static const struct { const char *key, *what; } wk[] = {
        {"'footprint':'64KB'", "footprint: gives the working set the op walks in the caches of "
                               "the device's memory system"},
        {"'scope':'warp'", "scope: says whose working set the op walks in the caches of the "
                           "device's memory system"},
        {"'scope':'kernel'", "scope: says whose working set the op walks in the caches of the "
                             "device's memory system"},
    };
    for (size_t i = 0; i < sizeof wk / sizeof wk[0]; i++) {
        char want[512], key[128];
        snprintf(ab, sizeof ab, mkf, "'v100'", wk[i].key, "");
        snprintf(want, sizeof want, "t.json: ops[0].program.body[1].%s, which has no cache here "
                 "(device.l1_smem_kb and l2_kb are 0): every sector of the op goes to DRAM, on "
                 "which it has no effect", wk[i].what);
        expect_error(ab, want);
        /* a base without the memory system and a variant without a cache */
        snprintf(ab, sizeof ab, mkf, "'titanv-gpgpusim'", wk[i].key,
                 ",'variants':[{'name':'m','device':'v100'}]");
        snprintf(want, sizeof want, "t.json: ops[0].program.body[1].%s, which has no cache here "
                 "(device.l1_smem_kb and l2_kb are 0 in every run): every sector of the op goes "
                 "to DRAM, on which it has no effect", wk[i].what);
        expect_error(ab, want);
        /* unified memory reads a managed op's working set alone */
        snprintf(key, sizeof key, "%s,'managed':true", wk[i].key);
        snprintf(ab, sizeof ab, mkf, "'v100'", key, "");
        snprintf(want, sizeof want, "t.json: ops[0].program.body[1].%s, which has no cache here "
                 "(device.l1_smem_kb and l2_kb are 0) nor unified memory (device.uvm_page_kb is "
                 "0): every sector of the op goes to DRAM, on which it has no effect", wk[i].what);
        expect_error(ab, want);
        const char *uvm = "{'preset':'v100','uvm_page_kb':64,'uvm_fault_latency':1000}";
        snprintf(ab, sizeof ab, mkf, uvm, key, "");
        scn_free(parse_ok(ab));
        snprintf(ab, sizeof ab, mkf, uvm, wk[i].key, "");
        snprintf(want, sizeof want, "t.json: ops[0].program.body[1].%s, which has no cache here "
                 "(device.l1_smem_kb and l2_kb are 0): every sector of the op goes to DRAM, on "
                 "which it has no effect", wk[i].what);
        expect_error(ab, want);
        /* an L1 or an L2 reads it (most-room-table4-l1's L1) */
        snprintf(ab, sizeof ab, mkf, "{'preset':'v100','l1_smem_kb':128,'l1_assoc':4,"
                 "'latency_l1':20}", wk[i].key, "");
        scn_free(parse_ok(ab));
        snprintf(ab, sizeof ab, mkf, "'v100'", wk[i].key,
                 ",'variants':[{'name':'c','device':{'l2_kb':6144,'l2_assoc':16,"
                 "'latency_l2':160}}]");
        scn_free(parse_ok(ab));
    }
    /* a mem op's "managed" with the memory system on but no unified memory
     * in any run (uvm_page_kb 0: simcore/exec_warp.c sets EW_X_MANAGED
     * only with uvm_page), given at all */
    static const char *const mg[] = {"'managed':true", "'managed':false"};
    for (size_t i = 0; i < 2; i++) {
        snprintf(ab, sizeof ab, mkf, "'v100'", mg[i], "");
        expect_error(ab, "t.json: ops[0].program.body[1].managed: puts the op's data in unified "
                         "memory, whose pages the device's memory system migrates, which has no "
                         "unified memory here (device.uvm_page_kb is 0): the op's sectors go as "
                         "any other's, on which it has no effect");
        snprintf(ab, sizeof ab, mkf, "'titanv-gpgpusim'", mg[i],
                 ",'variants':[{'name':'m','device':'v100'}]");
        expect_error(ab, "t.json: ops[0].program.body[1].managed: puts the op's data in unified "
                         "memory, whose pages the device's memory system migrates, which has no "
                         "unified memory here (device.uvm_page_kb is 0 in every run): the op's "
                         "sectors go as any other's, on which it has no effect");
        /* a variant's unified memory reads it (most-room-table4-transfer's) */
        snprintf(ab, sizeof ab, mkf, "'v100'", mg[i],
                 ",'variants':[{'name':'u','device':{'uvm_page_kb':64,"
                 "'uvm_fault_latency':174420,'sm_faults':1}}]");
        scn_free(parse_ok(ab));
    }
    /* a library kernel's program keeps them (matrixMul's footprint, scope) */
    parse_ok_with_library("{'schema':'schedlab-scenario/1','device':'v100','ops':[{'kernel':"
                          "'K1','blocks':1,'threads':32,'program':'matrixMul'}]}");
    /* a variant's device that is the scenario's own (docs/scenario-format.md
     * Variants: the device is applied over the scenario's own) changes
     * nothing; a policy of the base's own values stays a repeat run */
    static const char *const same[] = {"'tx2'", "{'sms':2}", "{'preset':'tx2'}"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(ab, sizeof ab, "{'schema':'schedlab-scenario/1','device':'tx2','ops':[{'kernel':"
                 "'K1','blocks':2,'threads':256,'block_time':'1ms'}],'variants':[{'name':'rr',"
                 "'policy':{'placement':'round-robin'}},{'name':'d','device':%s}]}", same[i]);
        expect_error(ab, "t.json: variants[1].device: makes the scenario's own device (\"tx2\"), so "
                         "it changes nothing; give the fields or preset this variant changes, or "
                         "leave \"device\" out");
    }
    scn_free(parse_ok("{'schema':'schedlab-scenario/1','device':'tx2','ops':[{'kernel':'K1',"
                      "'blocks':2,'threads':256,'block_time':'1ms'}],'variants':[{'name':'d',"
                      "'device':{'sms':1}},{'name':'again','policy':{'placement':'most-room'}}]}"));
    /* with one kernel of a program, it orders that kernel's warps */
    scn_free(parse_ok("{'schema':'schedlab-scenario/1','device':'titanv-gpgpusim',"
                      "'policy':{'warp':'lrr'},'ops':[{'kernel':'K1','blocks':2,'threads':256,"
                      "'block_time':'1ms'},{'kernel':'K2','blocks':1,'threads':32,"
                      "'program':{'body':[{'op':'alu'}]}}]}"));
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2','streams':[{'name':'null','priority':'high'}],"
                 "'ops':[{'kernel':'K1','blocks':2,'threads':256,'block_time':'1ms'}]}",
                 "t.json: streams[0].name: \"null\" is each process's NULL stream, there without being "
                 "declared (ops name it by \"stream\": \"null\" and \"process\")");
}

/* "task" on a stream (TX2 paper §2.2, §3.2: tau1 issues to S2 and S3) and
 * "blocking" on a copy (§2.3: a cudaMemcpy returns when the copy is
 * complete) reach the simulator; input that contradicts the paper is
 * refused at its path: a task in two processes (a task is an OS thread of
 * one address space), a blocking kernel launch (launches are
 * asynchronous), a blocking sync, a non-boolean. */
static void test_tasks_and_blocking(void **state) {
    (void)state;
    scn_scenario *s = parse_ok(
        "{'schema':'schedlab-scenario/1','device':'tx2',"
        "'streams':[{'name':'S1','task':'tau0'},{'name':'S2','task':'tau1'},"
        "           {'name':'S3','task':'tau1'},{'name':'S4'}],"
        "'ops':[{'kernel':'K4','stream':'S2','blocks':1,'threads':32,'block_time':1},"
        "       {'copy':'C','stream':'S3','bytes':1,'direction':'h2d','blocking':true},"
        "       {'copy':'D','stream':'S3','bytes':1,'direction':'h2d','blocking':false},"
        "       {'copy':'E','stream':'S4','bytes':1,'direction':'h2d'},"
        "       {'sync':'Y','stream':'S3'},{'sync':'Z','stream':'S3','scope':'device'},"
        "       {'sync':'W','stream':'S3','scope':'stream'}]}");
    sim_config cfg = config_of(s, 0);
    assert_string_equal(cfg.streams[0].task, "tau0");
    assert_string_equal(cfg.streams[1].task, "tau1");
    assert_string_equal(cfg.streams[2].task, "tau1");
    assert_null(cfg.streams[3].task);
    assert_true(cfg.ops[1].blocking);
    assert_false(cfg.ops[2].blocking);
    assert_false(cfg.ops[3].blocking);
    assert_false(cfg.ops[4].sync_device);
    assert_true(cfg.ops[5].sync_device);
    assert_false(cfg.ops[6].sync_device);
    scn_free(s);

    expect_error("{'schema':'schedlab-scenario/1','device':'tx2',"
                 "'streams':[{'name':'S1','task':'tau'},{'name':'S2'},"
                 "           {'name':'S3','process':'P1','task':'tau'}],"
                 "'ops':[{'kernel':'K','stream':'S1','blocks':1,'threads':1,'block_time':1}]}",
                 "t.json: streams[2].task: task \"tau\" issues to streams[0] of process \"P0\", "
                 "and a task is an OS thread of one process (TX2 paper §2.2), not of \"P1\"; "
                 "give each process's threads names of their own");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2',"
                 "'streams':[{'name':'S1','task':''}],"
                 "'ops':[{'kernel':'K','stream':'S1','blocks':1,'threads':1,'block_time':1}]}",
                 "t.json: streams[0].task: must not be empty");
    expect_error(one_kernel("'tx2'", "'block_time':'1s','blocking':true"),
                 "t.json: ops[0].blocking: a kernel launch is asynchronous (TX2 paper §2.3): "
                 "its task goes on at once; to wait for it, follow it with a \"sync\" on its "
                 "stream");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2',"
                 "'ops':[{'sync':'Y','blocking':true}]}",
                 "t.json: ops[0].blocking: a sync always blocks its task until its stream's "
                 "earlier work has completed");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2',"
                 "'ops':[{'copy':'C','bytes':1,'direction':'h2d','blocking':1}]}",
                 "t.json: ops[0].blocking: must be true or false, not an integer");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2',"
                 "'ops':[{'sync':'Y','scope':'process'}]}",
                 "t.json: ops[0].scope: unknown scope \"process\" (known: stream, device)");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2',"
                 "'ops':[{'copy':'C','bytes':1,'direction':'h2d','scope':'device'}]}",
                 "t.json: ops[0]: \"scope\" does not apply to a copy (a copy takes: copy, "
                 "stream, process, task, at, launch_latency, bytes, direction, duration, blocking)");
}

/* A sync or a blocking copy inside a real-time task's GPU segment is
 * refused with the reason: GCAPS §4's segment is its misc CPU time G^m
 * beside its pure GPU time G^e, "in asynchronous mode", waited for once at
 * the segment's end; a call that waits in between has no place in it (the
 * message says to split the segment). Before, the sync's message gave no
 * reason and "blocking" was an unknown key. */
static void test_segment_waits_once(void **state) {
    (void)state;
    const char *head = "{'schema':'schedlab-scenario/1','device':'tx2','duration':'100ms',"
                       "'tasks':[{'name':'a','priority':10,'period':'50ms','segments':[{'gpu':"
                       "{'misc':'1ms','ops':[";
    const char *why = "a GPU segment waits for its GPU work once, at its end (GCAPS §4: the task "
                      "busy-waits or self-suspends during the segment's copies and kernels, G^e, "
                      "while its misc CPU time G^m runs beside them in asynchronous mode), and "
                      "its ops run in order on the task's one stream anyway; to wait in between, "
                      "end the segment there and begin another GPU segment";
    char src[1024], want[1024];
    snprintf(src, sizeof src, "%s{'copy':'c','bytes':'1MB','direction':'h2d','blocking':true},"
             "{'kernel':'K','blocks':1,'threads':32,'block_time':'1ms'}]}}]}]}", head);
    snprintf(want, sizeof want, "t.json: tasks[0].segments[0].gpu.ops[0].blocking: a GPU "
             "segment's copy is asynchronous (cudaMemcpyAsync): %s", why);
    expect_error(src, want);
    snprintf(src, sizeof src, "%s{'kernel':'K','blocks':1,'threads':32,'block_time':'1ms',"
             "'blocking':false}]}}]}]}", head);
    snprintf(want, sizeof want, "t.json: tasks[0].segments[0].gpu.ops[0].blocking: a kernel "
             "launch is asynchronous (TX2 paper §2.3): %s", why);
    expect_error(src, want);
    snprintf(src, sizeof src, "%s{'kernel':'K','blocks':1,'threads':32,'block_time':'1ms'},"
             "{'sync':'s'}]}}]}]}", head);
    snprintf(want, sizeof want, "t.json: tasks[0].segments[0].gpu.ops[1]: a \"sync\" has no "
             "place in a real-time task's GPU segment: %s", why);
    expect_error(src, want);
    /* without a name of either kind, as before */
    snprintf(src, sizeof src, "%s{'blocks':1}]}}]}]}", head);
    expect_error(src, "t.json: tasks[0].segments[0].gpu.ops[0]: needs \"kernel\" or \"copy\" "
                      "with the op's name");
}

/* An op of the NULL stream may name the CPU task that calls it (TX2 paper
 * §2.3: every CPU program issues to the one default stream); an op of a
 * declared stream may not (its stream's task calls it). */
static void test_null_stream_op_task(void **state) {
    (void)state;
    scn_scenario *s = parse_ok(
        "{'schema':'schedlab-scenario/1','device':'tx2','streams':[{'name':'S1','task':'t0'}],"
        "'ops':[{'kernel':'K','task':'t0','blocks':1,'threads':32,'block_time':1},"
        "       {'sync':'Y','stream':'null','task':'t1','scope':'device'},"
        "       {'copy':'C','stream':'S1','bytes':1,'direction':'h2d'}]}");
    sim_config cfg = config_of(s, 0);
    assert_string_equal(cfg.ops[0].task, "t0");
    assert_string_equal(cfg.ops[1].task, "t1");
    assert_null(cfg.ops[2].task);
    scn_free(s);
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2','streams':[{'name':'S1'}],"
                 "'ops':[{'kernel':'K','stream':'S1','task':'t0','blocks':1,'threads':32,"
                 "'block_time':1}]}",
                 "t.json: ops[0].task: stream \"S1\" is issued to by its own task "
                 "(streams[].task); only an op of the NULL stream names the task that calls "
                 "it, since every CPU program of a process issues to that one default stream "
                 "(TX2 paper §2.3)");
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2',"
                 "'ops':[{'kernel':'K','task':'','blocks':1,'threads':32,'block_time':1}]}",
                 "t.json: ops[0].task: must not be empty");
}

/* A program body of up to 8,192 entries (scenario.c SCN_MAX_BODY: a source
 * loop written out whole, sgemm-scoreboard's 4,588) is read; one more is an
 * error naming the place and the limit. */
static char *body_of(int n) {
    const char *head = "{'schema':'schedlab-scenario/1','device':'titanv-gpgpusim',"
                       "'ops':[{'kernel':'K','blocks':1,'threads':32,'program':{'body':[";
    const char *one = "{'op':'alu'},";
    size_t len = strlen(head) + (size_t)n * strlen(one) + 16;
    char *src = malloc(len);
    assert_non_null(src);
    char *at = src + sprintf(src, "%s", head);
    for (int i = 0; i < n; i++) at += sprintf(at, "%s", one);
    at[-1] = ']';
    strcpy(at, "}}]}");
    return src;
}

static void test_program_body_limit(void **state) {
    (void)state;
    char *src = body_of(8192);
    scn_free(parse_ok(src));
    free(src);
    src = body_of(8193);
    expect_error(src, "t.json: ops[0].program.body: has 8193 entries; at most 8192 "
                      "(use \"count\" and \"repeat\")");
    free(src);
}

/* Three launches of one "program" object (a QoS sweep's runs of a kernel,
 * qos_sweep.c build) read as three launches of copies of it: the earlier
 * launch's reading is copied (scenario.c copy_read_program), arrays of
 * their own, every field as a reading of its own would give. */
static void test_shared_program(void **state) {
    (void)state;
    char *src = jq("{'schema':'schedlab-scenario/1','device':{'preset':'v100','l2_kb':6144,"
                   "'l2_assoc':16,'latency_l2':160},"
                   "'ops':[{'kernel':'A','blocks':2,'threads':64,'program':"
                   "{'body':[{'op':'alu','count':3,'fu':'fp32'},{'op':'mem','access':'strided:2',"
                   "'footprint':'4KB','scope':'block','dep':1},{'op':'sfu','dep':[1,2]}],"
                   "'repeat':5,'mem_requests':2}},{'kernel':'B','blocks':1,'threads':32,"
                   "'program':{'body':[{'op':'alu'}]}}]}");
    char err[512] = "";
    json_t *own = json_loads(src, 0, NULL);
    free(src);
    assert_non_null(own);
    /* ops: A, B, then A twice more: the shared one's object in each A */
    json_t *shared = json_deep_copy(own), *ops = json_object_get(shared, "ops");
    json_t *a = json_array_get(ops, 0);
    json_array_append(ops, a);
    json_array_append(ops, a);
    /* and the same with a copy of its own in each */
    json_t *copies = json_deep_copy(shared);
    assert_ptr_not_equal(json_array_get(json_object_get(copies, "ops"), 2), json_array_get(json_object_get(copies, "ops"), 0));
    scn_scenario *x = NULL, *y = NULL;
    assert_int_equal(scn_parse_json_portable(shared, "t.json", &x, err, sizeof err), 0);
    assert_int_equal(scn_parse_json_portable(copies, "t.json", &y, err, sizeof err), 0);
    sim_config cx = config_of(x, 0), cy = config_of(y, 0);
    assert_int_equal(cx.nops, 4);
    assert_int_equal(cy.nops, 4);
    for (size_t i = 0; i < 4; i++) {
        const sim_program *p = cx.ops[i].program, *q = cy.ops[i].program;
        assert_non_null(p);
        assert_int_equal(p->nbody, q->nbody);
        assert_int_equal(p->repeat, q->repeat);
        assert_int_equal(p->mem_requests, q->mem_requests);
        assert_int_equal(p->persistent, q->persistent);
        assert_memory_equal(p->latency, q->latency, sizeof p->latency);
        assert_memory_equal(p->body, q->body, p->nbody * sizeof *p->body);
        assert_int_equal(p->access != NULL, q->access != NULL);
        assert_int_equal(p->dep != NULL, q->dep != NULL);
        if (p->access) assert_memory_equal(p->access, q->access, p->nbody * sizeof *p->access);
        if (p->dep) assert_memory_equal(p->dep, q->dep, p->nbody * sizeof *p->dep);
    }
    /* the third launch is A's: 3 entries, repeat 5, its own arrays */
    const sim_program *p0 = cx.ops[0].program, *p2 = cx.ops[2].program;
    assert_int_equal(p2->nbody, 3);
    assert_int_equal(p2->repeat, 5);
    assert_int_equal(p2->mem_requests, 2);
    assert_non_null(p2->access);
    assert_non_null(p2->dep);
    assert_ptr_not_equal(p2->body, p0->body);
    assert_ptr_not_equal(p2->access, p0->access);
    assert_ptr_not_equal(p2->dep, p0->dep);
    assert_int_equal(p2->access[1].sectors, 8);
    assert_int_equal(p2->access[1].footprint, 4096);
    scn_free(x);
    scn_free(y);
    json_decref(own);
    json_decref(shared);
    json_decref(copies);
}

/* The limits docs/scenario-format.md gives, at their edges: a stream's
 * priority (Streams: -1000000 to 1000000), a variant's QAWS budget (Ops:
 * "1 to 1000000") and an op's latency given as a time ("to the nearest
 * cycle", at least one). */
static void test_documented_limits(void **state) {
    (void)state;
    const char *prio = "{'schema':'schedlab-scenario/1','device':'tx2',"
                       "'streams':[{'name':'S','priority':%d}],"
                       "'ops':[{'kernel':'K','stream':'S','blocks':1,'threads':32,"
                       "'block_time':1}]}";
    char src[1024];
    /* the range's ends are in it (mutant: scn-prio-range) */
    snprintf(src, sizeof src, prio, 1000000);
    scn_scenario *s = parse_ok(src);
    assert_int_equal(config_of(s, 0).streams[0].priority, 1000000);
    scn_free(s);
    snprintf(src, sizeof src, prio, -1000000);
    scn_free(parse_ok(src));
    snprintf(src, sizeof src, prio, 1000001);
    expect_error(src, "t.json: streams[0].priority: 1000001 is out of range "
                      "(-1000000..1000000)");

    /* a budget of 0 is refused, not read as "the base's" (mutant:
     * scn-budget-range) */
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2','policy':{'warp':'qaws'},"
                 "'ops':[{'kernel':'K1','blocks':1,'threads':32,"
                 "'program':{'body':[{'op':'alu'}]}}],"
                 "'variants':[{'name':'b','budgets':{'K1':0}}]}",
                 "t.json: variants[0].budgets.K1: 0 must be at least 1");

    /* a latency as a time becomes the nearest cycle: 2 ns at the TX2's
     * 1.3 GHz is 2.6 cycles, so 3, not 2 (mutant: scn-latency-truncate) */
    const char *lat = "{'schema':'schedlab-scenario/1','device':'tx2',"
                      "'ops':[{'kernel':'K','blocks':1,'threads':32,"
                      "'program':{'body':[{'op':'alu'}]},'latency':{'alu':'%s'}}]}";
    snprintf(src, sizeof src, lat, "2ns");
    s = parse_ok(src);
    sim_config cfg = config_of(s, 0);
    assert_non_null(cfg.ops[0].program);
    assert_int_equal(cfg.ops[0].program->latency[SIM_ICLASS_ALU], 3);
    scn_free(s);
    /* and a time shorter than half a cycle rounds to 0 cycles, which is
     * refused as 0 given as an integer is (mutant: scn-latency-zero) */
    snprintf(src, sizeof src, lat, "0ns");
    expect_error(src, "t.json: ops[0].latency.alu: 0 cycles is outside 1..1000000000");
}

/* The first CPU segment of the one-task scenario `one` with `v` as its
 * "cpu" (a copy: the scenario is freed). */
static sim_segment cpu_segment(const char *one, const char *v) {
    char src[1024];
    snprintf(src, sizeof src, one, v);
    scn_scenario *s = parse_ok(src);
    sim_segment g = config_of(s, 0).tasks[0].segments[0];
    scn_free(s);
    return g;
}

/* Execution-time variation (docs/scenario-format.md, "Real-time tasks";
 * exec_dist.c): a duration, {"min", "max"} uniform, or {"min", "max",
 * "mean", "sd"} a normal clipped to min..max; the WCET the analysis uses
 * is max. Each way one can be wrong, with its message. */
static void test_exec_distributions(void **state) {
    (void)state;
    const char *one = "{'schema':'schedlab-scenario/1','device':'tx2','cpus':1,"
                      "'tasks':[{'name':'a','cpu':0,'priority':10,'period':'50ms',"
                      "'segments':[{'cpu':%s},{'gpu':{'misc':'1ms','exec':'2ms'}}]}]}";
    char src[1024];
    sim_segment g = cpu_segment(one, "'3ms'");
    assert_int_equal(g.cpu, 3000000);
    assert_int_equal(g.cpu_var.kind, SIM_DIST_NONE);
    g = cpu_segment(one, "{'min':'1ms','max':'3ms'}");
    assert_int_equal(g.cpu, 3000000);                 /* the WCET: max */
    assert_int_equal(g.cpu_var.kind, SIM_DIST_UNIFORM);
    assert_int_equal(g.cpu_var.min, 1000000);
    assert_int_equal(g.cpu_var.max, 3000000);
    g = cpu_segment(one, "{'min':'1ms','max':'3ms','mean':'2ms','sd':'0.5ms'}");
    assert_int_equal(g.cpu_var.kind, SIM_DIST_NORMAL);
    assert_int_equal(g.cpu_var.mean, 2000000);
    assert_int_equal(g.cpu_var.sd, 500000);
    /* a normal with min left out: min 0 */
    assert_int_equal(cpu_segment(one, "{'max':'3ms','mean':'2ms','sd':'0.5ms'}").cpu_var.min, 0);
    static const struct { const char *v, *msg; } bad[] = {
        { "{'min':'1ms','max':'3ms','median':'2ms'}",
          "unknown key \"median\" (a distribution has min, max, mean, sd)" },
        { "{'min':'1ms'}", "segments[0].cpu.max: missing (the WCET)" },
        { "{'max':'3ms'}", "segments[0].cpu.min: missing (uniform on min..max)" },
        { "{'min':'1ms','max':'3ms','mean':'2ms'}", "a normal needs both \"mean\" and \"sd\"" },
        { "{'min':'1ms','max':'3ms','sd':'1ms'}", "a normal needs both \"mean\" and \"sd\"" },
        { "{'min':'1ms','max':'3ms','mean':'0.5ms','sd':'1ms'}",
          "segments[0].cpu.mean: must lie within min..max" },
        { "{'min':'1ms','max':'3ms','mean':'4ms','sd':'1ms'}",
          "segments[0].cpu.mean: must lie within min..max" },
        { "{'min':'4ms','max':'3ms'}", "needs 0 <= min <= max" },
        { "{'min':-1,'max':'3ms'}", "segments[0].cpu.min: -1 must not be negative" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[512] = "";
        scn_scenario *x = NULL;
        snprintf(src, sizeof src, one, bad[i].v);
        if (parse(src, &x, err, sizeof err) == 0) {
            scn_free(x);
            fail_msg("%s accepted", bad[i].v);
        }
        if (!strstr(err, bad[i].msg))
            fail_msg("%s: \"%s\" does not say \"%s\"", bad[i].v, err, bad[i].msg);
    }
}

/* A real-time task's keys (docs/scenario-format.md Real-time tasks): its
 * core one of cpus', its priority 1..99, a deadline at most its period,
 * names distinct, a segment one of cpu or gpu; an op of a task's GPU
 * segment as an op of "ops" (a copy's direction, regs at most 255); the
 * scenario's duration positive. And each segment's ops are its own. */
static void test_task_keys(void **state) {
    (void)state;
    const char *one = "{'schema':'schedlab-scenario/1','device':'tx2','cpus':2,"
                      "'tasks':[{'name':'a',%s,'segments':[%s]}]}";
    const char *keys = "'cpu':0,'priority':10,'period':'50ms'";
    const char *seg = "{'cpu':'1ms'}";
    char src[1024], k[256];
    /* cores 0..cpus-1 (mutant: stasks-cpu-edge) */
    snprintf(k, sizeof k, "'cpu':1,'priority':10,'period':'50ms'");
    snprintf(src, sizeof src, one, k, seg);
    scn_scenario *s = parse_ok(src);
    assert_int_equal(config_of(s, 0).tasks[0].cpu, 1);
    scn_free(s);
    snprintf(k, sizeof k, "'cpu':2,'priority':10,'period':'50ms'");
    snprintf(src, sizeof src, one, k, seg);
    expect_error(src, "t.json: tasks[0].cpu: 2 is not a core (cpus is 2: cores 0..1)");
    /* SCHED_FIFO's 1..99 (mutant: stasks-prio-zero) */
    snprintf(k, sizeof k, "'cpu':0,'priority':0,'period':'50ms'");
    snprintf(src, sizeof src, one, k, seg);
    expect_error(src, "t.json: tasks[0].priority: 0 is outside 1..99");
    /* constrained deadlines (mutant: stasks-deadline-past-period) */
    snprintf(k, sizeof k, "'cpu':0,'priority':10,'period':'50ms','deadline':'50ms'");
    snprintf(src, sizeof src, one, k, seg);
    scn_free(parse_ok(src));
    snprintf(k, sizeof k, "'cpu':0,'priority':10,'period':'50ms','deadline':'51ms'");
    snprintf(src, sizeof src, one, k, seg);
    expect_error(src, "t.json: tasks[0].deadline: must be positive and at most the period "
                      "(constrained deadlines)");
    /* a segment is one of the two (mutant: stasks-cpu-and-gpu) */
    snprintf(src, sizeof src, one, keys, "{'cpu':'1ms','gpu':{'misc':'1ms','exec':'1ms'}}");
    expect_error(src, "t.json: tasks[0].segments[0]: must be {\"cpu\": duration} or {\"gpu\": "
                      "{\"misc\": d, \"exec\": d}}");
    /* regs per thread at most 255, as for an op of "ops" (mutant:
     * stasks-regs-max) */
    snprintf(src, sizeof src, one, keys,
             "{'gpu':{'misc':'1ms','ops':[{'kernel':'K','blocks':1,'threads':32,'regs':256,"
             "'block_time':'1ms'}]}}");
    expect_error(src, "t.json: tasks[0].segments[0].gpu.ops[0].regs: 256 is more than 255, the "
                      "most this build accepts");
    /* the scenario's duration is positive (mutant: stasks-duration-zero) */
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2','duration':0,"
                 "'tasks':[{'name':'a','priority':10,'period':'50ms','segments':[{'cpu':'1ms'}]}]}",
                 "t.json: duration: must be positive");
    /* names are distinct, the first one's too (mutant: stasks-dup-name) */
    expect_error("{'schema':'schedlab-scenario/1','device':'tx2',"
                 "'tasks':[{'name':'a','priority':10,'period':'50ms','segments':[{'cpu':'1ms'}]},"
                 "{'name':'a','priority':11,'period':'50ms','segments':[{'cpu':'1ms'}]}]}",
                 "t.json: tasks[1].name: \"a\" is also tasks[0]'s name");

    /* every segment points at its own ops, in order, and a copy keeps the
     * direction it names (mutants: stasks-ops-offset, stasks-copy-dirs) */
    s = parse_ok("{'schema':'schedlab-scenario/1','device':'tx2','cpus':2,"
                 "'tasks':[{'name':'a','cpu':0,'priority':10,'period':'50ms','segments':["
                 "{'gpu':{'misc':'1ms','ops':[{'copy':'a_in','bytes':'1MB','direction':'h2d'},"
                 "{'kernel':'a_k','blocks':1,'threads':32,'block_time':'1ms'}]}},"
                 "{'cpu':'1ms'},"
                 "{'gpu':{'misc':'1ms','ops':[{'copy':'a_out','bytes':'1MB','direction':'d2h'}]}}]},"
                 "{'name':'b','cpu':1,'priority':20,'period':'50ms','segments':["
                 "{'gpu':{'misc':'1ms','ops':[{'kernel':'b_k','blocks':1,'threads':32,"
                 "'block_time':'1ms'}]}}]}]}");
    sim_config cfg = config_of(s, 0);
    assert_int_equal(cfg.ntasks, 2);
    const sim_task *a = &cfg.tasks[0], *b = &cfg.tasks[1];
    assert_int_equal(a->nsegments, 3);
    assert_int_equal(a->segments[0].nops, 2);
    assert_string_equal(a->segments[0].ops[0].name, "a_in");
    assert_int_equal(a->segments[0].ops[0].direction, TRACE_COPY_H2D);
    assert_string_equal(a->segments[0].ops[1].name, "a_k");
    assert_int_equal(a->segments[1].kind, SIM_SEG_CPU);
    assert_int_equal(a->segments[2].nops, 1);
    assert_string_equal(a->segments[2].ops[0].name, "a_out");
    assert_int_equal(a->segments[2].ops[0].direction, TRACE_COPY_D2H);
    assert_int_equal(b->nsegments, 1);
    assert_string_equal(b->segments[0].ops[0].name, "b_k");
    scn_free(s);
}

/* "null" is each process's own NULL stream (TX2 paper §4.1, N1-N2; docs/
 * scenario-format.md Streams): with 48 processes, each issuing one kernel
 * to "null", there are 48 NULL streams, op i's of process Pi, however the
 * stream index happens to hash them (mutant: scn-null-shared). */
static void test_null_stream_per_process(void **state) {
    (void)state;
    enum { NP = 48 };
    static char src[NP * 96 + 256];
    size_t n = (size_t)snprintf(src, sizeof src, "{'schema':'schedlab-scenario/1','device':"
                                "'tx2','ops':[");
    for (int i = 0; i < NP; i++)
        n += (size_t)snprintf(src + n, sizeof src - n, "%s{'kernel':'K%d','stream':'null',"
                              "'process':'P%d','blocks':1,'threads':32,'block_time':1}",
                              i ? "," : "", i, i);
    snprintf(src + n, sizeof src - n, "]}");
    scn_scenario *s = parse_ok(src);
    sim_config cfg = config_of(s, 0);
    assert_int_equal(cfg.nstreams, NP);
    for (int i = 0; i < NP; i++) {
        char want[16];
        snprintf(want, sizeof want, "P%d", i);
        const sim_stream *st = &cfg.streams[cfg.ops[i].stream];
        assert_string_equal(st->name, "null");
        assert_string_equal(st->process, want);
    }
    scn_free(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_duration_units),
        cmocka_unit_test(test_size_and_rate_units),
        cmocka_unit_test(test_bad_units),
        cmocka_unit_test(test_refused_no_effect),
        cmocka_unit_test(test_did_you_mean),
        cmocka_unit_test(test_tasks_and_blocking),
        cmocka_unit_test(test_copy_duration_and_memset),
        cmocka_unit_test(test_error_messages_verbatim),
        cmocka_unit_test(test_streams_and_priorities),
        cmocka_unit_test(test_presets_with_overrides),
        cmocka_unit_test(test_sm_order_forms),
        cmocka_unit_test(test_policy),
        cmocka_unit_test(test_variants),
        cmocka_unit_test(test_block_time_array_and_copies),
        cmocka_unit_test(test_parse_file),
        cmocka_unit_test(test_program_access),
        cmocka_unit_test(test_reference),
        cmocka_unit_test(test_reference_edges),
        cmocka_unit_test(test_names_near),
        cmocka_unit_test(test_ambiguous_kernel_names),
        cmocka_unit_test(test_empty_lists),
        cmocka_unit_test(test_segment_waits_once),
        cmocka_unit_test(test_null_stream_op_task),
        cmocka_unit_test(test_program_body_limit),
        cmocka_unit_test(test_shared_program),
        cmocka_unit_test(test_documented_limits),
        cmocka_unit_test(test_exec_distributions),
        cmocka_unit_test(test_task_keys),
        cmocka_unit_test(test_null_stream_per_process),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
