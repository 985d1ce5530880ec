/* test_api_ctx_stop.c -- the database check of the start (api_ctx.c's
 * check_main: PRAGMA quick_check on a thread of its own) is stopped by
 * api_free, whenever the stop comes (api_ctx.c: "a stop meanwhile
 * interrupts it"; serve's SIGTERM frees the context last).
 *
 * sqlite3_interrupt only stops statements that are running: sqlite3_step
 * clears the flag when the connection has none ("This prevents a call to
 * sqlite3_interrupt from interrupting a statement that has not yet
 * started", vdbeapi.c), and so does sqlite3_prepare. A stop that came
 * while the check thread was opening its connection or preparing the
 * PRAGMA was lost, and api_free then waited for the whole check: a second
 * per 100 MB of database.
 *
 * Measured against the check itself on the same file, so the test holds on
 * a fast or a slow machine: the check run to its end costs T; a context
 * freed at once after api_init (the check thread not yet in its step) must
 * be gone having cost well under T (half of it). Costs are the process's
 * CPU time, all threads, not wall time: a lost stop makes the check thread
 * read the whole database, CPU that shows however loaded the machine is,
 * while waiting does not -- make test runs this niced beside the suites,
 * and a stop that was not lost once took 0.458 s of wall time against a
 * check's 0.705 (under ASan, right as the suites started). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../db/db.h"
#include "../../server/http/api.h"
#include "../../server/http/api_ctx.h"

/* the CPU time of the process so far, every thread's */
static double cpu(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static char path[512];

/* A schedlab database with MB megabytes of filler pages, for the check to read. */
static void make_db(int mb) {
    const char *tmp = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/schedlab-ctxstop-%d.db", tmp && *tmp ? tmp : "/tmp", (int)getpid());
    unlink(path);
    db *d;
    char err[512];
    assert_int_equal(db_open(path, &d, err, sizeof err), 0);
    char sql[256];
    snprintf(sql, sizeof sql,
             "CREATE TABLE filler(b BLOB);"
             "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %d) "
             "INSERT INTO filler SELECT randomblob(3000) FROM n;",
             mb * 340);
    assert_int_equal(sqlite3_exec(db_handle(d), sql, NULL, NULL, NULL), SQLITE_OK);
    db_close(d);
}

static void drop_db(void) {
    char p[600];
    unlink(path);
    snprintf(p, sizeof p, "%s-wal", path);
    unlink(p);
    snprintf(p, sizeof p, "%s-shm", path);
    unlink(p);
}

static void stop_before_the_check_runs(void **state) {
    (void)state;
    make_db(64);
    api_config cfg = {.db_path = path, .version = "test"};
    char err[512], msg[256];
    api_ctx *a;

    /* the check to its end (the wait polls every millisecond: a few
     * microseconds of CPU each) */
    double t0 = cpu();
    assert_int_equal(api_init(&cfg, &a, err, sizeof err), 0);
    while (api_health(a, msg, sizeof msg)) usleep(1000);
    double whole = cpu() - t0;
    assert_string_equal(msg, "");
    api_free(a);

    /* freed at once, three times: each stop comes before or as the check
     * thread opens its connection and prepares. A lost stop lets the whole
     * check run (at least `whole`); half of it is the bound (a quarter, in
     * wall time, failed once on a stop that was not lost: 0.036 s against
     * 0.138, under ASan beside a second test run on 2 cores) */
    for (int i = 0; i < 3; i++) {
        t0 = cpu();
        assert_int_equal(api_init(&cfg, &a, err, sizeof err), 0);
        api_free(a);
        double stop = cpu() - t0;
        print_message("stop %d: %.4f CPU-s, the whole check %.4f\n", i + 1, stop, whole);
        if (stop > whole / 2) {
            drop_db();
            fail_msg("api_init and api_free cost %.3f CPU-s; the check alone costs %.3f", stop, whole);
        }
    }
    drop_db();
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stop_before_the_check_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
