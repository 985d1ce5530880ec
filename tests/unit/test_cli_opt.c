/* test_cli_opt.c -- an option given twice (server/cli/cli_opt.c,
 * cli_opt_once; docs/cli.md: every option takes one value, and one given
 * twice is bad input naming it, where the last value silently won). -o and
 * --output are one option (one slot); the message names how it was given. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "../../server/cli/cli_opt.h"

static void test_once(void **state) {
    (void)state;
    const char *db = NULL, *out = NULL, *port = NULL;
    cli_opt_seen seen = {.n = 0};
    char err[160] = "";
    assert_int_equal(cli_opt_once(&seen, &db, "--db", err, sizeof err), 0);
    assert_int_equal(cli_opt_once(&seen, &out, "-o", err, sizeof err), 0);
    assert_int_equal(cli_opt_once(&seen, &port, "--port", err, sizeof err), 0);
    assert_string_equal(err, "");
    assert_int_equal(cli_opt_once(&seen, &db, "--db", err, sizeof err), -1);
    assert_string_equal(err, "option --db given twice (it takes one value)");
    assert_int_equal(cli_opt_once(&seen, &out, "--output", err, sizeof err), -1);
    assert_string_equal(err, "option --output given twice (as -o, then --output; it takes one value)");
    assert_int_equal(cli_opt_once(&seen, &port, "--port", err, sizeof err), -1);
    /* a message cut to the buffer, never past it */
    char small[12];
    assert_int_equal(cli_opt_once(&seen, &db, "--db", small, sizeof small), -1);
    assert_int_equal(strlen(small), sizeof small - 1);
}

/* more options than the table holds: those past it are not remembered
 * (never written out of bounds); the table has room for every command's */
static void test_full(void **state) {
    (void)state;
    const char *slots[40];
    cli_opt_seen seen = {.n = 0};
    char err[160];
    for (int i = 0; i < 40; i++) assert_int_equal(cli_opt_once(&seen, &slots[i], "--x", err, sizeof err), 0);
    assert_int_equal(seen.n, 32);
    assert_int_equal(cli_opt_once(&seen, &slots[31], "--x", err, sizeof err), -1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_once),
        cmocka_unit_test(test_full),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
