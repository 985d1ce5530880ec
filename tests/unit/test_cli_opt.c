/* test_cli_opt.c -- an option given twice (server/cli/cli_opt.c,
 * cli_opt_once; docs/cli.md: every option takes one value, and one given
 * twice is bad input naming it, where the last value silently won). -o and
 * --output are one option (one slot); the message names how it was given. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
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

/* an option's name and value (cli_opt_split), whole numbers
 * (cli_opt_long) and decimals (cli_opt_decimal), as cli_opt.h words them */
static void test_values(void **state) {
    (void)state;
    char flag[8];
    const char *v = cli_opt_split("--db=x.db", flag, sizeof flag);
    assert_string_equal(flag, "--db");
    assert_string_equal(v, "x.db");
    assert_null(cli_opt_split("--db", flag, sizeof flag));
    assert_string_equal(flag, "--db");
    assert_string_equal(cli_opt_split("--db=", flag, sizeof flag), "");
    /* a name as long as flag (no room for its NUL) is cut, and no option's */
    char five[8] = "#######";
    assert_null(cli_opt_split("--abc=1", five, 5));
    assert_string_equal(five, "--ab");
    assert_int_equal(five[5], '#');

    long n = -1;
    assert_int_equal(cli_opt_long("42", 0, 100, &n), 0);
    assert_int_equal(n, 42);
    assert_int_equal(cli_opt_long("5", 5, 10, &n), 0);
    assert_int_equal(cli_opt_long("10", 5, 10, &n), 0);
    assert_int_equal(n, 10);
    n = -1;
    assert_int_equal(cli_opt_long("4", 5, 10, &n), -1);
    assert_int_equal(cli_opt_long("11", 5, 10, &n), -1);
    assert_int_equal(cli_opt_long("", 0, 10, &n), -1);
    assert_int_equal(cli_opt_long("4x", 0, 10, &n), -1);
    assert_int_equal(cli_opt_long("+4", 0, 10, &n), -1);
    assert_int_equal(n, -1);                          /* untouched when refused */
    /* 18 digits are read; a 19th is refused before it could overflow */
    assert_int_equal(cli_opt_long("999999999999999999", 0, LONG_MAX, &n), 0);
    assert_int_equal(n, 999999999999999999L);
    assert_int_equal(cli_opt_long("1000000000000000000", 0, LONG_MAX, &n), -1);

    const char *end = NULL;
    double d = -1;
    assert_int_equal(cli_opt_decimal("2.5ms", &end, &d), 0);
    assert_true(d == 2.5);
    assert_string_equal(end, "ms");
    assert_int_equal(cli_opt_decimal("7.x", &end, &d), 0);   /* a '.' without digits is not its */
    assert_true(d == 7.0);
    assert_string_equal(end, ".x");
    assert_int_equal(cli_opt_decimal(".5", &end, &d), -1);
    assert_int_equal(cli_opt_decimal("", &end, &d), -1);
    /* 63 characters are read, 64 are refused (the copy's buffer) */
    char digits[70];
    memset(digits, '1', 63);
    digits[63] = '\0';
    assert_int_equal(cli_opt_decimal(digits, &end, &d), 0);
    assert_true(*end == '\0');
    memset(digits, '1', 64);
    digits[64] = '\0';
    assert_int_equal(cli_opt_decimal(digits, &end, &d), -1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_once),
        cmocka_unit_test(test_full),
        cmocka_unit_test(test_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
