/* test_cli_out.c -- an output file of the command line (server/cli/cli_out.c;
 * docs/cli.md "Exit status and errors"): a file replaced keeps its
 * permission bits; a regular file with other hard links is refused
 * (CLI_OUT_REFUSED) and left as it was, since the rename would part this
 * name from the others; one file is told by st_dev/st_ino through a
 * symlink, and two names of a file not there yet by their folder and name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../server/cli/cli_out.h"

static char dir[PATH_MAX];

static void path_in(char *buf, size_t n, const char *name) { snprintf(buf, n, "%s/%s", dir, name); }

static void put(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void has(const char *path, const char *text) {
    char buf[256] = "";
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t k = fread(buf, 1, sizeof buf - 1, f);
    buf[k] = '\0';
    fclose(f);
    assert_string_equal(buf, text);
}

/* nothing but the names expected: no ".NAME.XXXXXX" left behind */
static void entries(size_t want) {
    char cmd[PATH_MAX + 32];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | wc -l", dir);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = 0;
    assert_int_equal(fscanf(p, "%zu", &n), 1);
    pclose(p);
    assert_int_equal(n, want);
}

static int setup(void **state) {
    (void)state;
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/test_cli_out.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_mode_kept(void **state) {
    (void)state;
    char p[PATH_MAX + 32], err[PATH_MAX + 256];
    path_in(p, sizeof p, "mode.json");
    put(p, "old");
    assert_int_equal(chmod(p, 0640), 0);
    assert_int_equal(cli_out_write(p, "new", 3, err, sizeof err), 0);
    has(p, "new");
    struct stat st;
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0640);
    assert_int_equal(chmod(p, 0604), 0);
    assert_int_equal(cli_out_write(p, "newer", 5, err, sizeof err), 0);
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0604);
    unlink(p);
    entries(0);
}

static void test_hard_link_refused(void **state) {
    (void)state;
    char p[PATH_MAX + 32], q[PATH_MAX + 32], err[PATH_MAX + 256], want[PATH_MAX + 256];
    path_in(p, sizeof p, "linked.json");
    path_in(q, sizeof q, "other.json");
    put(p, "old");
    assert_int_equal(link(p, q), 0);
    assert_int_equal(cli_out_check(p, err, sizeof err), CLI_OUT_REFUSED);
    snprintf(want, sizeof want, "%s: has 2 hard links: it would be replaced under this name alone, "
             "the other names keeping the old text (write to another name, or remove the other "
             "links)", p);
    assert_string_equal(err, want);
    err[0] = '\0';
    assert_int_equal(cli_out_write(p, "new", 3, err, sizeof err), CLI_OUT_REFUSED);
    assert_string_equal(err, want);
    cli_out o;
    assert_int_equal(cli_out_open(&o, q, err, sizeof err), CLI_OUT_REFUSED);
    has(p, "old");
    has(q, "old");
    entries(2);
    /* one name left: replaced as any file */
    unlink(q);
    assert_int_equal(cli_out_check(p, err, sizeof err), 0);
    assert_int_equal(cli_out_write(p, "new", 3, err, sizeof err), 0);
    has(p, "new");
    unlink(p);
    entries(0);
}

static void test_same_file(void **state) {
    (void)state;
    char db[PATH_MAX + 32], ln[PATH_MAX + 32], other[PATH_MAX + 32], dot[PATH_MAX + 32];
    path_in(db, sizeof db, "x.db");
    path_in(ln, sizeof ln, "l.db");
    path_in(other, sizeof other, "y.db");
    put(db, "db");
    put(other, "db");
    assert_int_equal(symlink("x.db", ln), 0);
    assert_true(cli_out_same_file(db, db));
    assert_true(cli_out_same_file(ln, db));   /* through the symlink */
    assert_true(cli_out_same_file(db, ln));
    assert_false(cli_out_same_file(other, db));   /* the same bytes, another file */
    /* not there yet: one folder and name, however written */
    char a[PATH_MAX + 32], b[PATH_MAX + 32];
    path_in(a, sizeof a, "new.json");
    snprintf(b, sizeof b, "%s/./new.json", dir);
    assert_true(cli_out_same_file(a, b));
    path_in(dot, sizeof dot, "other.json");
    assert_false(cli_out_same_file(a, dot));
    assert_false(cli_out_same_file(a, db));   /* one there, one not */
    /* a name in the root folder, and one in the current folder */
    assert_true(cli_out_same_file("/schedlab-test-no-such-file", "//schedlab-test-no-such-file"));
    assert_false(cli_out_same_file("/schedlab-test-no-such-file", "/schedlab-test-no-such-other"));
    assert_true(cli_out_same_file("schedlab-test-no-such-file", "./schedlab-test-no-such-file"));
    unlink(ln);
    unlink(db);
    unlink(other);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mode_kept),
        cmocka_unit_test(test_hard_link_refused),
        cmocka_unit_test(test_same_file),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
