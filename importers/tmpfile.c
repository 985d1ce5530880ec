/* tmpfile.c -- unlinked temporary files; see tmpfile.h. */
#include "tmpfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* glibc names O_TMPFILE only under _GNU_SOURCE, __O_TMPFILE always: without
 * it the file would exist with a name between mkstemp and unlink, and a
 * crash there would leave it behind (the server's spill files and upload
 * bodies are made here too) */
#if !defined(O_TMPFILE) && defined(__O_TMPFILE)
#define O_TMPFILE __O_TMPFILE
#endif
#ifndef O_TMPFILE
#define O_TMPFILE 0
#endif
#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

const char *imp_tmp_dir(void) {
    const char *dir = getenv("TMPDIR");
    return dir && *dir ? dir : "/tmp";
}

int imp_tmp_fd(const char *tag) { return imp_tmp_fd_in(imp_tmp_dir(), tag); }

int imp_tmp_fd_in(const char *dir, const char *tag) {
    int fd = -1;
    if (O_TMPFILE) {
        fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
        if (fd >= 0) return fd;
        /* a missing or unwritable directory fails the same way below; only
         * a kernel or file system without O_TMPFILE is worth the fallback */
        if (errno != EISDIR && errno != EOPNOTSUPP && errno != EINVAL) return -1;
    }
    char path[PATH_MAX];
    if ((size_t)snprintf(path, sizeof path, "%s/schedlab-%s-XXXXXX", dir, tag) >= sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    fd = mkstemp(path);
    if (fd < 0) return -1;
    unlink(path);
    if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}
