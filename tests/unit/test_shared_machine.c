/* test_shared_machine.c -- the C side of issue 16 (server: safe on a shared
 * lab machine): range checks of imported traces, the archive ratio cap, a
 * NUL in a CSV field, the work budget, path scrubbing in answers and the
 * job queue. The HTTP side is tests/api/shared_machine.test.mjs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <archive.h>
#include <archive_entry.h>

#include "../../importers/archive.h"
#include "../../importers/csv.h"
#include "../../importers/trace_check.h"
#include "../../server/http/budget.h"
#include "../../server/http/http.h"
#include "../../server/http/jobs.h"
#include "../../server/formats/scenario.h"

static void one_block_trace(trace *t, int32_t sm, int64_t start, int64_t end) {
    trace_init(t);
    trace_kernel *k = trace_add_kernel(t);
    k->name = trace_intern(t, "K1");
    k->blocks = 1;
    trace_block *b = trace_add_block(t);
    b->kernel = 0;
    b->index = 0;
    b->sm = sm;
    b->start = start;
    b->end = end;
}

static void test_check_ranges(void **state) {
    (void)state;
    char err[512];
    trace t;
    one_block_trace(&t, 3, 0, 1000);
    assert_int_equal(imp_check_trace(&t, "ok.csv", err, sizeof err), 0);
    trace_free(&t);

    one_block_trace(&t, 2147483647, 0, 1000);
    assert_int_equal(imp_check_trace(&t, "gt.csv", err, sizeof err), -1);
    assert_non_null(strstr(err, "gt.csv: blocks[0].sm: 2147483647 is out of range (0..1023"));
    trace_free(&t);

    one_block_trace(&t, 0, 0, IMP_MAX_TIME);
    assert_int_equal(imp_check_trace(&t, "t.json", err, sizeof err), -1);
    assert_non_null(strstr(err, "blocks[0].end"));
    trace_free(&t);

    /* the widest span allowed still fits an int64_t */
    /* the bound itself: a block's sm is 0..1023 (trace_check.h: 0 <= sm <
     * IMP_MAX_SMS; docs/trace-format.md: "a block's or warp issue's `sm` is
     * 0..1023"), so SM 1023 is the last one stored and 1024 one past it */
    one_block_trace(&t, IMP_MAX_SMS - 1, 0, 1000);
    assert_int_equal(imp_check_trace(&t, "t.json", err, sizeof err), 0);
    trace_free(&t);
    one_block_trace(&t, IMP_MAX_SMS, 0, 1000);
    assert_int_equal(imp_check_trace(&t, "t.json", err, sizeof err), -1);
    assert_string_equal(err, "t.json: blocks[0].sm: 1024 is out of range (0..1023, the most SMs "
                             "schedlab stores)");
    /* a streamed batch's blocks are held to the same bound */
    assert_int_equal(imp_check_blocks(t.blocks.v, 1, 5, 1, "t.json", err, sizeof err), -1);
    assert_non_null(strstr(err, "t.json: blocks[5].sm: 1024 is out of range (0..1023"));
    trace_free(&t);

    one_block_trace(&t, 0, -IMP_MAX_TIME + 1, IMP_MAX_TIME - 1);
    assert_int_equal(imp_check_trace(&t, "t.json", err, sizeof err), 0);
    assert_true(t.blocks.v[0].end - t.blocks.v[0].start > 0);
    trace_free(&t);

    one_block_trace(&t, 0, 0, 1);
    t.blocks.v[0].kernel = 7;
    assert_int_equal(imp_check_trace(&t, "t.json", err, sizeof err), -1);
    assert_non_null(strstr(err, "blocks[0].kernel: 7 names no kernel"));
    trace_free(&t);

    one_block_trace(&t, 0, 0, 1);
    t.has_device = true;
    t.device.sms = 50000000;
    assert_int_equal(imp_check_trace(&t, "t.json", err, sizeof err), -1);
    assert_non_null(strstr(err, "device.sms: 50000000"));
    trace_free(&t);
}

static void test_csv_nul(void **state) {
    (void)state;
    static const char data[] = "a,b\nK1\0evil,2\n";
    imp_csv r;
    imp_csv_init(&r, data, sizeof data - 1);
    char err[256];
    assert_int_equal(imp_csv_next(&r, err, sizeof err), 1);
    assert_int_equal(imp_csv_next(&r, err, sizeof err), -1);
    assert_string_equal(err, "2:3: NUL byte in a field (not a text CSV file?)");
    imp_csv_free(&r);
}

/* A tar.gz of one 64 MiB member of spaces: some 64 KiB compressed. */
static unsigned char *bomb(size_t *len) {
    size_t cap = 4 << 20;
    unsigned char *buf = malloc(cap);
    struct archive *a = archive_write_new();
    archive_write_add_filter_gzip(a);
    archive_write_set_format_ustar(a);
    assert_int_equal(archive_write_open_memory(a, buf, cap, len), ARCHIVE_OK);
    struct archive_entry *e = archive_entry_new();
    archive_entry_set_pathname(e, "res/bomb.json");
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    archive_entry_set_size(e, 64 << 20);
    archive_write_header(a, e);
    char *chunk = malloc(1 << 20);
    memset(chunk, ' ', 1 << 20);
    for (int i = 0; i < 64; i++) archive_write_data(a, chunk, 1 << 20);
    free(chunk);
    archive_entry_free(e);
    archive_write_close(a);
    archive_write_free(a);
    return buf;
}

static void test_archive_ratio(void **state) {
    (void)state;
    size_t len = 0;
    unsigned char *tgz = bomb(&len);
    assert_true(len < 200000);
    imp_file arc = {.name = "bomb.tar.gz", .data = tgz, .len = len}, *out = NULL;
    size_t n = 0;
    char err[512];
    clock_t t0 = clock();
    assert_int_equal(imp_archive_expand(&arc, &out, &n, err, sizeof err), -1);
    assert_non_null(strstr(err, "expands to more than 16 MiB"));
    /* refused after 16 MiB, not 1 GiB: well under a second of CPU */
    assert_true((double)(clock() - t0) / CLOCKS_PER_SEC < 5.0);
    free(tgz);
}

static void test_budget(void **state) {
    (void)state;
    budget b;
    budget_default(&b);
    char err[256];
    assert_int_equal(budget_parse("blocks=1000000,ops=10,workers=2", &b, err, sizeof err), 0);
    assert_int_equal(b.blocks, 1000000);
    assert_int_equal(b.ops, 10);
    assert_int_equal(b.workers, 2);
    assert_int_equal(budget_parse("bloks=1", &b, err, sizeof err), -1);
    assert_non_null(strstr(err, "bloks=1"));
    assert_int_equal(budget_parse("ops=-1", &b, err, sizeof err), -1);
    assert_int_equal(budget_parse("queue=0", &b, err, sizeof err), -1);
    /* digits alone, as every number of the command line (docs/cli.md):
     * strtod took each of these, "0x10" as 16 */
    static const char *const junk[] = {"blocks=0x10", "blocks=1e6", "blocks= 5", "blocks=+5",
                                       "blocks=5 ", "blocks=1.0", "blocks=", "blocks=9999999999999999999"};
    for (size_t i = 0; i < sizeof junk / sizeof *junk; i++) {
        budget_default(&b);
        assert_int_equal(budget_parse(junk[i], &b, err, sizeof err), -1);
        char want[128];
        snprintf(want, sizeof want, "--budget: blocks: expected a whole number 0..999999999999999999 "
                 "in digits, got \"%s\"", junk[i] + 7);
        assert_string_equal(err, want);
        assert_int_equal(b.blocks, 20000000);
    }
    assert_int_equal(budget_parse("workers=65", &b, err, sizeof err), -1);
    assert_string_equal(err, "--budget: workers: expected a whole number 1..64 in digits, got \"65\"");
    assert_int_equal(budget_parse("sync=1,ops=2,sync=3", &b, err, sizeof err), -1);
    assert_string_equal(err, "--budget: sync given twice");

    static const char scn[] =
        "{\"schema\": \"schedlab-scenario/1\", \"name\": \"big\", \"device\": \"tx2\","
        " \"streams\": [{\"name\": \"S1\"}], \"ops\": [{\"kernel\": \"K1\", \"stream\": \"S1\","
        " \"blocks\": 50000000, \"threads\": 32, \"block_time\": \"1us\"}],"
        " \"variants\": [{\"name\": \"rr\", \"policy\": {\"placement\": \"round-robin\"}}]}";
    scn_scenario *s;
    assert_int_equal(scn_parse(scn, strlen(scn), "big.json", &s, err, sizeof err), 0);
    budget_work w;
    assert_int_equal(budget_estimate(s, &w, err, sizeof err), 0);
    scn_free(s);
    assert_int_equal(w.blocks, 100000000);   /* 50 M blocks, two runs */
    assert_int_equal(w.variants, 1);
    assert_int_equal(w.ops, 1);
    /* 50 M blocks of 1 us over the TX2's 2 SMs: 25 s */
    assert_true(w.seconds > 24.9 && w.seconds < 25.1);
    budget_default(&b);
    json_t *over = budget_check(&b, &w);
    assert_non_null(over);
    const char *msg = json_string_value(json_object_get(over, "error"));
    assert_non_null(strstr(msg, "100000000 is over the limit of 20000000"));
    assert_int_equal(json_integer_value(json_object_get(json_object_get(over, "work"), "blocks")),
                     100000000);
    json_decref(over);
    w.blocks = 10;
    w.events = 10;
    assert_null(budget_check(&b, &w));
}

static void test_scrub_paths(void **state) {
    (void)state;
    char a[] = "/home/ana/lab/schedlab.db: database disk image is malformed";
    http_scrub_paths(a);
    assert_string_equal(a, "schedlab.db: database disk image is malformed");
    char b[] = "cannot open \"/tmp/x/y/trace.csv\" (see /var/log/z.log), run /api/runs/x kept";
    http_scrub_paths(b);
    assert_string_equal(b, "cannot open \"trace.csv\" (see z.log), run x kept");
    char c[] = "no path here: a/b and /single";
    http_scrub_paths(c);
    assert_string_equal(c, "no path here: a/b and /single");
}

static void slow_job(void *arg, job_ctl *ctl, int *status, json_t **result, char *err,
                     size_t errlen) {
    int *n = arg;
    atomic_store(&ctl->total, 100);
    for (int i = 0; i < 100; i++) {
        if (atomic_load(&ctl->cancel)) {
            *status = 503;
            snprintf(err, errlen, "aborted");
            return;
        }
        atomic_fetch_add(&ctl->done, 1);
        struct timespec ts = {0, (long)*n * 1000000L};
        nanosleep(&ts, NULL);
    }
    *status = 201;
    *result = json_pack("{s:i}", "ms", *n);
}

static void test_jobs(void **state) {
    (void)state;
    job_queue *q;
    char err[128], id1[JOBS_ID_SIZE], id2[JOBS_ID_SIZE], id3[JOBS_ID_SIZE];
    assert_int_equal(jobs_start(1, 2, &q, err, sizeof err), 0);
    int fast = 0, slow = 50;
    assert_int_equal(jobs_submit(q, "test", slow_job, &fast, NULL, 100, id1), 0);
    /* the queue holds two; a third is refused (503 upstream) */
    for (;;) {
        json_t *s = jobs_status(q, id1);
        const char *st = json_string_value(json_object_get(s, "state"));
        bool done = strcmp(st, "done") == 0;
        json_decref(s);
        if (done) break;
    }
    json_t *s = jobs_status(q, id1);
    assert_int_equal(json_integer_value(json_object_get(s, "status")), 201);
    assert_true(json_real_value(json_object_get(s, "progress")) == 1.0);
    json_decref(s);
    assert_int_equal(jobs_submit(q, "test", slow_job, &slow, NULL, 100, id2), 0);
    assert_int_equal(jobs_submit(q, "test", slow_job, &slow, NULL, 100, id3), 0);
    char id4[JOBS_ID_SIZE];
    assert_int_equal(jobs_submit(q, "test", slow_job, &slow, NULL, 100, id4), -1);
    /* stop: the queued one never runs, the running one is cancelled */
    jobs_stop(q, 50);
    s = jobs_status(q, id3);
    assert_string_equal(json_string_value(json_object_get(s, "state")), "aborted");
    json_decref(s);
    s = jobs_status(q, id2);
    assert_string_equal(json_string_value(json_object_get(s, "state")), "aborted");
    json_decref(s);
    assert_int_equal(jobs_submit(q, "test", slow_job, &slow, NULL, 100, id4), -2);
    assert_null(jobs_status(q, "nosuchjob"));
    jobs_free(q);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check_ranges),
        cmocka_unit_test(test_csv_nul),
        cmocka_unit_test(test_archive_ratio),
        cmocka_unit_test(test_budget),
        cmocka_unit_test(test_scrub_paths),
        cmocka_unit_test(test_jobs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
