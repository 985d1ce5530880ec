/* test_cli_progress.c -- the wording of a long sweep's progress line
 * (server/cli/cli_progress.c; docs/cli.md): durations to the second under
 * an hour, to the minute from there ("about 1 h 13 min left"), never "60
 * min" or "60 s"; a reporter that is not asked for (every 0, no counter) is
 * not started, and stopping none is nothing. The lines themselves, from a
 * real sweep, are checked by tests/api/rta.test.mjs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../server/cli/cli_progress.h"

static void said(double d, const char *want) {
    char buf[32];
    progress_duration(d, buf, sizeof buf);
    assert_string_equal(buf, want);
}

static void test_durations(void **state) {
    (void)state;
    said(0, "0 s");
    said(-3, "0 s");           /* a clock read early: never negative */
    said(0.4, "0 s");
    said(44.6, "45 s");
    said(59.4, "59 s");
    said(59.5, "1 min 0 s");   /* rounded to the second first */
    said(920, "15 min 20 s");
    said(3569, "59 min 29 s");
    said(3570, "1 h 0 min");   /* to the minute from an hour on: not "60 min" */
    said(4380, "1 h 13 min");
    said(4409, "1 h 13 min");
    said(4410, "1 h 14 min");
    said(7170, "2 h 0 min");
    said(21600, "6 h 0 min");
}

static void test_not_asked(void **state) {
    (void)state;
    atomic_llong done = 0;
    assert_null(progress_start("sweep", "points", 10, 0, &done, NULL, NULL));
    assert_null(progress_start("sweep", "points", 10, -1, &done, NULL, NULL));
    assert_null(progress_start("sweep", "points", 10, 5, NULL, NULL, NULL));
    progress_stop(NULL);
    /* one asked for, stopped before its first report: nothing printed,
     * nothing left running (ASan/LSan see the thread and its memory) */
    progress *p = progress_start("sweep", "points", 10, 3600, &done, NULL, NULL);
    assert_non_null(p);
    progress_stop(p);
}

/* What a reporter printed on stderr, a line every 0.02 s, by the time its
 * first line was out (caller frees). The counts and the percentage are
 * fixed; the elapsed time, rate and time left are the clock's, so only the
 * fixed part is checked. */
static char *lines_of(const char *what, uint64_t total, long long done_now,
                      _Atomic(const char *) *phase, const char *timed) {
    fflush(stderr);
    int saved = dup(2);
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_true(saved >= 0 && dup2(fileno(f), 2) == 2);
    atomic_llong done = done_now;
    progress *p = progress_start(what, "points", total, 0.02, &done, phase, timed);
    assert_non_null(p);
    /* until its first line is out (10 s at most, on a loaded machine) */
    struct stat st;
    for (int i = 0; i < 500 && fstat(fileno(f), &st) == 0 && st.st_size == 0; i++) {
        struct timespec ts = {0, 20000000};
        nanosleep(&ts, NULL);
    }
    progress_stop(p);
    fflush(stderr);
    assert_int_equal(dup2(saved, 2), 2);
    close(saved);
    long n = ftell(f);
    char *buf = calloc(1, (size_t)n + 1);
    assert_non_null(buf);
    rewind(f);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    return buf;
}

static void test_lines(void **state) {
    (void)state;
    /* counts grouped by thousands, the percentage truncated (12.5 -> 12) */
    char *s = lines_of("sweep", 1000000, 125000, NULL, NULL);
    if (strncmp(s, "schedlab: sweep: 125,000 of 1,000,000 points (12 %) in ", 55) != 0)
        fail_msg("first line: %s", s);
    assert_non_null(strstr(s, " points/s: about "));
    free(s);
    /* before the timed phase: what runs, nothing counted yet */
    static const char *loading = "loading";
    _Atomic(const char *) phase = loading;
    s = lines_of("qos", 1000, 0, &phase, "simulating");
    if (strncmp(s, "schedlab: qos: 0 of 1,000 points in ", 36) != 0) fail_msg("first line: %s", s);
    assert_non_null(strstr(s, " (loading first)\n"));
    free(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_durations),
        cmocka_unit_test(test_not_asked),
        cmocka_unit_test(test_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
