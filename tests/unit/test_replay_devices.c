/* test_replay_devices.c -- a trace that lists its GPUs (DESIGN §5: the
 * trace's devices, each kernel's and copy's index) replays GPU by GPU by
 * that index (server/app/replay_devices.c), each GPU on its own device
 * record, and the merged replay lists the simulated GPUs as the measured
 * trace does. No file from ../shared: the traces are made here, two GPUs
 * schedlab knows by name (simcore/cc.c) and of different SM counts, so a
 * replay that gave both GPUs one device record would show it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../server/app/replay_devices.h"
#include "../../server/formats/scenario.h"
#include "../../simcore/sim.h"

static const char *const NAMES[2] = {"NVIDIA GeForce RTX 3090", "Tesla V100-SXM2-32GB"};
static const int SMS[2] = {82, 80};

/* Three kernels and a copy on each of two GPUs, in lanes named `lane0` and
 * `lane1`; the trace's own device is the first GPU's. */
static void two_gpus(trace *t, const char *lane0, const char *lane1) {
    trace_init(t);
    trace_set_name(t, "two gpus");
    trace_set_source(t, "nsys-sqlite");
    for (int g = 0; g < 2; g++) {
        sim_device d = {.sms = SMS[g]};
        snprintf(d.name, sizeof d.name, "%s", NAMES[g]);
        assert_int_equal(trace_add_device(t, &d), g);
        if (g == 0) {
            t->device = d;
            t->has_device = true;
        }
    }
    for (int g = 0; g < 2; g++) {
        trace_str lane = trace_intern(t, g ? lane1 : lane0);
        for (int i = 0; i < 3; i++) {
            trace_kernel *k = trace_add_kernel(t);
            k->name = trace_intern(t, i % 2 ? "gemm" : "relu");
            k->stream = trace_intern(t, "7");
            k->process = lane;
            k->device = g;
            k->blocks = 160 + 40 * i;
            k->threads = 256;
            k->grid[0] = (int32_t)k->blocks, k->grid[1] = k->grid[2] = 1;
            k->block[0] = 256, k->block[1] = k->block[2] = 1;
            k->regs = 32;
            k->smem = 0;
            k->issue = 1000 + 100000 * i;
            k->first_block = k->issue + 5000;
            k->end = k->first_block + 40000 + 10000 * g;
        }
        trace_copy *c = trace_add_copy(t);
        c->name = trace_intern(t, "Memcpy HtoD");
        c->stream = trace_intern(t, "7");
        c->process = lane;
        c->device = g;
        c->direction = TRACE_COPY_H2D;
        c->bytes = 1 << 20;
        c->issue = 300000;
        c->start = 300500;
        c->end = 400500;
    }
    assert_false(t->oom);
}

static void check_replay(const trace *m, const char *key0, const char *key1) {
    char keys[4][REPLAY_DEVICE_KEY];
    assert_int_equal(replay_device_keys(m, keys, 4), 2);
    assert_string_equal(keys[0], key0);
    assert_string_equal(keys[1], key1);
    replay_dev *v = NULL;
    size_t n = 0;
    trace merged;
    char err[1024] = "";
    if (replay_devices_run(m, "two gpus", NULL, 0, NULL, &v, &n, &merged, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_int_equal(n, 2);
    for (size_t i = 0; i < n; i++) {
        /* each GPU's work alone, on its own device record */
        int g = strcmp(v[i].key, key0) == 0 ? 0 : 1;
        assert_string_equal(v[i].measured.device.name, NAMES[g]);
        assert_int_equal(v[i].measured.device.sms, SMS[g]);
        assert_int_equal(v[i].measured.devices.n, 0);
        assert_int_equal(v[i].measured.kernels.n, 3);
        assert_int_equal(v[i].measured.copies.n, 1);
        for (size_t k = 0; k < v[i].measured.kernels.n; k++)
            assert_int_equal(v[i].measured.kernels.v[k].device, 0);
        assert_int_equal(v[i].simulated.device.sms, SMS[g]);
        assert_true(v[i].ok);
    }
    /* the merged replay lists the two simulated GPUs; each record is on its
     * GPU's, in the order of the keys */
    assert_int_equal(merged.devices.n, 2);
    assert_int_equal(merged.kernels.n, 6);
    assert_int_equal(merged.copies.n, 2);
    for (size_t k = 0; k < merged.kernels.n; k++) {
        const trace_kernel *mk = &merged.kernels.v[k];
        int32_t g = mk->device;
        assert_true(g == 0 || g == 1);
        assert_int_equal(merged.devices.v[g].sms, strcmp(v[g].key, key0) == 0 ? SMS[0] : SMS[1]);
        assert_string_equal(trace_str_get(&merged, mk->process),
                            trace_str_get(&v[g].simulated, v[g].simulated.kernels.v[0].process));
    }
    for (size_t c = 0; c < merged.copies.n; c++)
        assert_int_equal(merged.copies.v[c].device, (int32_t)c);
    replay_devices_free(v, n);
    trace_free(&merged);
}

/* Lanes that name their GPU, as the importers write them: the keys are the
 * lanes', the split the index's. */
static void test_lanes_name_the_gpus(void **state) {
    (void)state;
    trace m;
    two_gpus(&m, "gpu0 ctx1", "gpu1 ctx2");
    check_replay(&m, "gpu0", "gpu1");
    trace_free(&m);
}

/* Lanes that do not (a trace written by another tool): the index alone
 * tells the GPUs apart, where the lane names would make them one. */
static void test_index_alone(void **state) {
    (void)state;
    trace m;
    two_gpus(&m, "P0", "P0");
    check_replay(&m, "device 0", "device 1");
    trace_free(&m);
}

/* A GPU the trace lists but gave no work is not replayed. */
static void test_idle_gpu_left_out(void **state) {
    (void)state;
    trace m;
    two_gpus(&m, "gpu0", "gpu2");
    sim_device idle = {.sms = 80};
    snprintf(idle.name, sizeof idle.name, "%s", NAMES[1]);
    trace_add_device(&m, &idle);   /* index 2, no record on it */
    char keys[4][REPLAY_DEVICE_KEY];
    assert_int_equal(replay_device_keys(&m, keys, 4), 2);
    assert_string_equal(keys[0], "gpu0");
    assert_string_equal(keys[1], "gpu2");
    trace_free(&m);
}

/* The replay numbers its GPUs as the measurement does (DESIGN §5's
 * index), also where a GPU had no work and the lanes do not name theirs:
 * GPUs 1 and 2 of three, lanes "P0", key "device 1" and "device 2" in both,
 * so that the compare view pairs each GPU's kernels with its own (a
 * renumbered replay had "device 0" and "device 1"). */
static void test_numbering_kept(void **state) {
    (void)state;
    trace m;
    two_gpus(&m, "P0", "P0");
    /* a GPU 0 without work before the two: every record one index on */
    sim_device idle = m.devices.v[0];
    assert_int_equal(trace_add_device(&m, &m.devices.v[1]), 2);
    m.devices.v[1] = m.devices.v[0];
    m.devices.v[0] = idle;
    for (size_t k = 0; k < m.kernels.n; k++) m.kernels.v[k].device++;
    for (size_t c = 0; c < m.copies.n; c++) m.copies.v[c].device++;
    char keys[4][REPLAY_DEVICE_KEY];
    assert_int_equal(replay_device_keys(&m, keys, 4), 2);
    assert_string_equal(keys[0], "device 1");
    assert_string_equal(keys[1], "device 2");
    replay_dev *v = NULL;
    size_t n = 0;
    trace merged;
    char err[1024] = "";
    if (replay_devices_run(&m, "three gpus", NULL, 0, NULL, &v, &n, &merged, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_int_equal(merged.devices.n, 3);
    for (size_t k = 0; k < merged.kernels.n; k++)
        assert_true(merged.kernels.v[k].device == 1 || merged.kernels.v[k].device == 2);
    /* GPU 2 is the V100's (80 SMs), as measured */
    assert_int_equal(merged.devices.v[2].sms, SMS[1]);
    assert_int_equal(replay_device_keys(&merged, keys, 4), 2);
    assert_string_equal(keys[0], "device 1");
    assert_string_equal(keys[1], "device 2");
    replay_devices_free(v, n);
    trace_free(&merged);
    trace_free(&m);
}

/* GPUs known only by name, as an nvprof CSV gives them ("GeForce GTX
 * 1080 Ti (1)": no SM count, no compute capability; the trace has no
 * device, its meta "device" the name): each replays on the GPU its name
 * names, as the trace of one such GPU does, not on a device of 0 SMs. */
static void test_gpus_known_by_name(void **state) {
    (void)state;
    trace m;
    two_gpus(&m, "dev0:ctx1", "dev1:ctx1");
    memset(&m.device, 0, sizeof m.device);
    m.has_device = false;
    for (int g = 0; g < 2; g++) {
        memset(&m.devices.v[g], 0, sizeof m.devices.v[g]);
        snprintf(m.devices.v[g].name, sizeof m.devices.v[g].name, "%s", NAMES[g]);
    }
    assert_int_equal(trace_set_meta(&m, "device", NAMES[0]), 0);
    replay_dev *v = NULL;
    size_t n = 0;
    trace merged;
    char err[1024] = "";
    if (replay_devices_run(&m, "two gpus", NULL, 0, NULL, &v, &n, &merged, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_int_equal(n, 2);
    for (size_t i = 0; i < n; i++) {
        int g = strcmp(v[i].key, "device 0") == 0 ? 0 : 1;
        /* its own name, the SM count its name gives (simcore/cc.c) */
        assert_string_equal(v[i].info.device, NAMES[g]);
        assert_int_equal(v[i].simulated.device.sms, SMS[g]);
    }
    replay_devices_free(v, n);
    trace_free(&merged);
    trace_free(&m);
}

/* Each GPU's simulation hands its blocks to a sink that asks the job's
 * cancel at every batch (replay_devices.h, REPLAY_CANCELLED) and keeps
 * them: the blocks kept are those the same simulation keeps without a
 * sink, in the same order (simcore/sim.h: a sink gets "exactly the order
 * they would have had in trace->blocks"), over several batches
 * (SIM_SINK_BATCH) of kernels of 80,000 to 120,000 blocks. */
static void test_blocks_as_without_a_sink(void **state) {
    (void)state;
    trace m;
    two_gpus(&m, "gpu0", "gpu1");
    for (size_t k = 0; k < m.kernels.n; k++) {
        m.kernels.v[k].blocks *= 500;
        m.kernels.v[k].grid[0] = (int32_t)m.kernels.v[k].blocks;
    }
    atomic_bool cancel = false;
    replay_dev *v = NULL;
    size_t n = 0;
    trace merged;
    char err[1024] = "";
    if (replay_devices_run(&m, "two gpus", NULL, 0, &cancel, &v, &n, &merged, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_int_equal(n, 2);
    for (size_t i = 0; i < n; i++) {
        char *txt = json_dumps(v[i].scenario, JSON_COMPACT);
        assert_non_null(txt);
        scn_scenario *s = NULL;
        sim_config cfg;
        trace alone;
        trace_init(&alone);
        if (scn_parse(txt, strlen(txt), "replay", &s, err, sizeof err) != 0 ||
            scn_config(s, 0, &cfg, err, sizeof err) != 0 || sim_run(&cfg, &alone, err, sizeof err) != 0)
            fail_msg("%s", err);
        free(txt);
        scn_free(s);
        assert_true(alone.blocks.n > 4 * SIM_SINK_BATCH);
        assert_int_equal(v[i].simulated.blocks.n, alone.blocks.n);
        for (size_t b = 0; b < alone.blocks.n; b++) {
            const trace_block *x = &v[i].simulated.blocks.v[b], *y = &alone.blocks.v[b];
            if (x->kernel != y->kernel || x->index != y->index || x->sm != y->sm ||
                x->start != y->start || x->end != y->end)
                fail_msg("GPU %zu, blocks[%zu]: kernel %d block %d on SM %d %lld..%lld, without a "
                         "sink kernel %d block %d on SM %d %lld..%lld", i, b, x->kernel, x->index,
                         x->sm, (long long)x->start, (long long)x->end, y->kernel, y->index, y->sm,
                         (long long)y->start, (long long)y->end);
        }
        trace_free(&alone);
    }
    assert_int_equal(merged.blocks.n, v[0].simulated.blocks.n + v[1].simulated.blocks.n);
    replay_devices_free(v, n);
    trace_free(&merged);
    trace_free(&m);
}

/* A cancelled replay stops (REPLAY_CANCELLED, err saying so) and leaves
 * nothing allocated (the ASan build checks): the replay, and a placement
 * variant of one that ran. */
static void test_cancelled(void **state) {
    (void)state;
    trace m;
    two_gpus(&m, "gpu0", "gpu1");
    atomic_bool cancel = true;
    replay_dev *v = NULL;
    size_t n = 0;
    trace merged;
    char err[1024] = "";
    assert_int_equal(replay_devices_run(&m, "two gpus", NULL, 0, &cancel, &v, &n, &merged, err,
                                        sizeof err),
                     REPLAY_CANCELLED);
    assert_null(v);
    assert_int_equal(n, 0);
    assert_non_null(strstr(err, "cancelled"));
    atomic_store(&cancel, false);
    if (replay_devices_run(&m, "two gpus", NULL, 0, &cancel, &v, &n, &merged, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_true(replay_devices_variants(v, n) > 0);
    trace vm;
    atomic_store(&cancel, true);
    err[0] = '\0';
    assert_int_equal(replay_devices_variant(&m, v, n, 0, &cancel, &vm, err, sizeof err),
                     REPLAY_CANCELLED);
    assert_non_null(strstr(err, "cancelled"));
    replay_devices_free(v, n);
    trace_free(&merged);
    trace_free(&m);
}

/* What `schedlab replay` prints for a trace whose work is all on one GPU
 * (replay_devices.h, replay_document: "for a trace of one GPU its scenario
 * (replay_scenario), for several GPUs replay_devices_scenarios";
 * scenario-format.md: several GPUs give one scenario per GPU): a trace that
 * lists two GPUs but worked on the first only (the second idle, so not
 * replayed: test_idle_gpu_left_out) prints a plain schedlab-scenario/1, not
 * a schedlab-replay-devices/1 of one device (mutant:
 * rp-devices-one-gpu-as-several). */
static void test_one_gpu_prints_its_scenario(void **state) {
    (void)state;
    trace m;
    two_gpus(&m, "gpu0", "gpu1");
    trace_str lane0 = trace_intern(&m, "gpu0");
    for (size_t i = 0; i < m.kernels.n; i++) {
        m.kernels.v[i].device = 0;
        m.kernels.v[i].process = lane0;
    }
    for (size_t i = 0; i < m.copies.n; i++) {
        m.copies.v[i].device = 0;
        m.copies.v[i].process = lane0;
    }
    char keys[4][REPLAY_DEVICE_KEY];
    assert_int_equal(replay_device_keys(&m, keys, 4), 1);
    json_t *doc = NULL;
    char err[1024] = "";
    if (replay_document(&m, "one gpu", NULL, &doc, err, sizeof err) != 0) fail_msg("%s", err);
    assert_string_equal(json_string_value(json_object_get(doc, "schema")), "schedlab-scenario/1");
    assert_null(json_object_get(doc, "devices"));
    assert_int_equal(json_array_size(json_object_get(doc, "ops")), 8);
    json_decref(doc);
    trace_free(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lanes_name_the_gpus),
        cmocka_unit_test(test_index_alone),
        cmocka_unit_test(test_idle_gpu_left_out),
        cmocka_unit_test(test_gpus_known_by_name),
        cmocka_unit_test(test_numbering_kept),
        cmocka_unit_test(test_blocks_as_without_a_sink),
        cmocka_unit_test(test_cancelled),
        cmocka_unit_test(test_one_gpu_prints_its_scenario),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
