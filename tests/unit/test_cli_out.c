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

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
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

/* What is written where: a FIFO (or device) as it is, in place (it cannot
 * be replaced); a symlink's file replaced, the link kept; a new file with
 * the umask's bits; an aborted file leaves nothing; stdout's failure said,
 * the buffered part included (fflush). */
static void test_what_is_replaced(void **state) {
    (void)state;
    char p[PATH_MAX + 32], t[PATH_MAX + 32], err[PATH_MAX + 256];
    path_in(p, sizeof p, "fifo");
    assert_int_equal(mkfifo(p, 0600), 0);
    int rd = open(p, O_RDWR | O_NONBLOCK);   /* a reader, so the write does not block */
    assert_true(rd >= 0);
    assert_int_equal(cli_out_write(p, "piped", 5, err, sizeof err), 0);
    char buf[16] = "";
    assert_int_equal(read(rd, buf, sizeof buf - 1), 5);
    assert_string_equal(buf, "piped");
    close(rd);
    struct stat st;
    assert_int_equal(lstat(p, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    unlink(p);

    path_in(p, sizeof p, "link.json");
    path_in(t, sizeof t, "target.json");
    put(t, "old");
    assert_int_equal(symlink("target.json", p), 0);
    assert_int_equal(cli_out_write(p, "new", 3, err, sizeof err), 0);
    assert_int_equal(lstat(p, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    has(t, "new");
    unlink(p);
    unlink(t);

    mode_t was = umask(027);
    path_in(p, sizeof p, "fresh.json");
    assert_int_equal(cli_out_write(p, "x", 1, err, sizeof err), 0);
    umask(was);
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0640);
    unlink(p);

    cli_out o;
    path_in(p, sizeof p, "aborted.json");
    assert_int_equal(cli_out_open(&o, p, err, sizeof err), 0);
    assert_int_equal(write(o.fd, "part", 4), 4);
    cli_out_abort(&o);
    entries(0);

    fflush(stdout);
    int saved = dup(1), full = open("/dev/full", O_WRONLY);
    assert_true(saved >= 0 && full >= 0);
    assert_int_equal(dup2(full, 1), 1);
    int rc = cli_out_write(NULL, "x", 1, err, sizeof err);
    clearerr(stdout);
    assert_int_equal(dup2(saved, 1), 1);
    close(saved);
    close(full);
    assert_int_equal(rc, -1);
    char want[128];
    snprintf(want, sizeof want, "stdout: write failed: %s", strerror(ENOSPC));
    assert_string_equal(err, want);
}

/* While a file is pending its stop signals remove it, except one ignored
 * at start (nohup: it stays ignored); the handlers are put back after. */
static void test_signals_put_back(void **state) {
    (void)state;
    char p[PATH_MAX + 32], err[PATH_MAX + 256];
    struct sigaction ign = {0}, cur;
    ign.sa_handler = SIG_IGN;
    struct sigaction hup0, term0;
    assert_int_equal(sigaction(SIGHUP, &ign, &hup0), 0);
    assert_int_equal(sigaction(SIGTERM, NULL, &term0), 0);
    cli_out o;
    path_in(p, sizeof p, "sig.json");
    assert_int_equal(cli_out_open(&o, p, err, sizeof err), 0);
    assert_int_equal(sigaction(SIGHUP, NULL, &cur), 0);
    assert_true(cur.sa_handler == SIG_IGN);
    assert_int_equal(sigaction(SIGTERM, NULL, &cur), 0);
    assert_true(cur.sa_handler != term0.sa_handler);
    assert_int_equal(cli_out_finish(&o, "x", 1, err, sizeof err), 0);
    assert_int_equal(sigaction(SIGTERM, NULL, &cur), 0);
    assert_true(cur.sa_handler == term0.sa_handler);
    assert_int_equal(sigaction(SIGHUP, &hup0, NULL), 0);
    unlink(p);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mode_kept),
        cmocka_unit_test(test_hard_link_refused),
        cmocka_unit_test(test_same_file),
        cmocka_unit_test(test_what_is_replaced),
        cmocka_unit_test(test_signals_put_back),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
