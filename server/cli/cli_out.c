/* cli_out.c -- an output file that appears whole or not at all (cli_out.h). */
#include "cli_out.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The temporary file not yet in place, for the exit and signal paths. */
static char pending[PATH_MAX];
static volatile sig_atomic_t has_pending;

static const int stop_sigs[] = {SIGINT, SIGTERM, SIGHUP};
#define NSTOP (sizeof stop_sigs / sizeof *stop_sigs)
static struct sigaction saved[NSTOP];
static int installed[NSTOP];

static void drop_pending(void) {
    if (has_pending) {
        has_pending = 0;
        unlink(pending);
    }
}

/* Remove the temporary file, then stop as the signal would have stopped
 * the process (default action, delivered once this handler returns). */
static void on_stop(int sig) {
    int saved_errno = errno;
    drop_pending();
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    raise(sig);
    errno = saved_errno;
}

static void set_pending(const char *tmp) {
    static int registered;
    if (!registered) {
        atexit(drop_pending);   /* die() exits between open and commit */
        registered = 1;
    }
    snprintf(pending, sizeof pending, "%s", tmp);
    has_pending = 1;
    for (size_t i = 0; i < NSTOP; i++) {
        struct sigaction old, sa;
        installed[i] = 0;
        /* a signal ignored at start (nohup, a background job) stays so */
        if (sigaction(stop_sigs[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN) continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_stop;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESTART;
        if (sigaction(stop_sigs[i], &sa, &saved[i]) == 0) installed[i] = 1;
    }
}

static void clear_pending(void) {
    for (size_t i = 0; i < NSTOP; i++)
        if (installed[i]) sigaction(stop_sigs[i], &saved[i], NULL);
    has_pending = 0;
}

static int open_in_place(cli_out *o, char *err, size_t n) {
    o->tmp[0] = '\0';
    o->fd = open(o->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (o->fd < 0) {
        snprintf(err, n, "%s: cannot write: %s", o->path, strerror(errno));
        return -1;
    }
    return 0;
}

int cli_out_check(const char *path, char *err, size_t n) {
    struct stat st;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink > 1) {
        snprintf(err, n, "%s: has %ju hard links: it would be replaced under this name alone, "
                 "the other names keeping the old text (write to another name, or remove "
                 "the other links)", path, (uintmax_t)st.st_nlink);
        return CLI_OUT_REFUSED;
    }
    return 0;
}

/* path as its folder's real path and its last name ("./r.json" and
 * "r.json" alike); -1 when the folder is not there or it is too long */
static int canonical_name(const char *path, char *buf, size_t n) {
    const char *slash = strrchr(path, '/');
    char dir[PATH_MAX], real[PATH_MAX];
    /* "/x" is in "/", "x" in ".", "a/b/x" in "a/b" */
    int dlen = slash && slash != path ? (int)(slash - path) : 1;
    const char *d = !slash ? "." : slash == path ? "/" : path;
    if ((size_t)snprintf(dir, sizeof dir, "%.*s", dlen, d) >= sizeof dir || !realpath(dir, real))
        return -1;
    int w = snprintf(buf, n, "%s/%s", real, slash ? slash + 1 : path);
    return w < 0 || (size_t)w >= n ? -1 : 0;
}

bool cli_out_same_file(const char *path, const char *other) {
    struct stat a, b;
    bool ha = stat(path, &a) == 0, hb = stat(other, &b) == 0;
    if (ha && hb) return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
    if (ha || hb) return false;
    char ca[PATH_MAX + 256], cb[PATH_MAX + 256];
    return canonical_name(path, ca, sizeof ca) == 0 && canonical_name(other, cb, sizeof cb) == 0 &&
           strcmp(ca, cb) == 0;
}

int cli_out_open(cli_out *o, const char *path, char *err, size_t n) {
    memset(o, 0, sizeof *o);
    o->path = path;
    o->fd = -1;
    if (cli_out_check(path, err, n)) return CLI_OUT_REFUSED;
    struct stat st, lst;
    bool exists = stat(path, &st) == 0;
    /* a device or FIFO is written as it is: it cannot be replaced */
    if (exists && !S_ISREG(st.st_mode)) return open_in_place(o, err, n);
    /* a symlink's file is replaced, the link kept */
    if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
        if (!exists || !realpath(path, o->target)) return open_in_place(o, err, n);
    } else if ((size_t)snprintf(o->target, sizeof o->target, "%s", path) >= sizeof o->target) {
        return open_in_place(o, err, n);
    }
    const char *slash = strrchr(o->target, '/');
    int w = slash ? snprintf(o->tmp, sizeof o->tmp, "%.*s/.%s.XXXXXX", (int)(slash - o->target),
                             o->target, slash + 1)
                  : snprintf(o->tmp, sizeof o->tmp, ".%s.XXXXXX", o->target);
    if (w < 0 || (size_t)w >= sizeof o->tmp) return open_in_place(o, err, n);
    /* a stop signal between the file's creation and its handler would
     * leave the file: it waits until the handler is in place */
    sigset_t stop, was;
    sigemptyset(&stop);
    for (size_t i = 0; i < NSTOP; i++) sigaddset(&stop, stop_sigs[i]);
    sigprocmask(SIG_BLOCK, &stop, &was);
    o->fd = mkstemp(o->tmp);
    if (o->fd >= 0) {
        fcntl(o->fd, F_SETFD, FD_CLOEXEC);
        set_pending(o->tmp);
    }
    sigprocmask(SIG_SETMASK, &was, NULL);
    if (o->fd < 0) {
        int e = errno;
        /* a folder we may not create files in, holding a file we may
         * write: the file is written in place, as before */
        if (exists && access(path, W_OK) == 0) return open_in_place(o, err, n);
        o->tmp[0] = '\0';
        snprintf(err, n, "%s: cannot write: %s", path, strerror(e));
        return -1;
    }
    mode_t mode;
    if (exists) {
        mode = st.st_mode & 07777;
    } else {
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
    }
    if (fchmod(o->fd, mode) != 0) { /* mkstemp's 0600 stays: only ours can read it */ }
    return 0;
}

int cli_out_commit(cli_out *o, char *err, size_t n) {
    int rc = close(o->fd);
    int e = errno;
    o->fd = -1;
    if (rc == 0 && o->tmp[0] && rename(o->tmp, o->target) != 0) {
        rc = -1;
        e = errno;
    }
    if (rc != 0) {
        if (o->tmp[0]) unlink(o->tmp);
        snprintf(err, n, "%s: write failed: %s", o->path, strerror(e));
    }
    if (o->tmp[0]) clear_pending();
    return rc;
}

void cli_out_abort(cli_out *o) {
    if (o->fd >= 0) close(o->fd);
    o->fd = -1;
    if (o->tmp[0]) {
        unlink(o->tmp);
        clear_pending();
    }
}

int cli_out_write(const char *path, const char *data, size_t len, char *err, size_t n) {
    if (!path) {
        if (fwrite(data, 1, len, stdout) != len || fflush(stdout) != 0) {
            snprintf(err, n, "stdout: write failed: %s", strerror(errno));
            return -1;
        }
        return 0;
    }
    cli_out o;
    int rc = cli_out_open(&o, path, err, n);
    if (rc) return rc;
    return cli_out_finish(&o, data, len, err, n);
}

int cli_out_finish(cli_out *o, const char *data, size_t len, char *err, size_t n) {
    while (len) {
        ssize_t k = write(o->fd, data, len);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) {
            snprintf(err, n, "%s: write failed: %s", o->path, strerror(errno));
            cli_out_abort(o);
            return -1;
        }
        data += k;
        len -= (size_t)k;
    }
    return cli_out_commit(o, err, n);
}
