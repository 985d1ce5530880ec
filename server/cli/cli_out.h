/* cli_out.h -- a file the command line writes (-o, --report) appears whole
 * or not at all (docs/cli.md "Exit status and errors": nothing half-written
 * is left behind).
 *
 * The text goes to a temporary file beside it (".NAME.XXXXXX", in the same
 * folder, so the rename stays on one file system), which is renamed onto
 * the name once complete. A failed write, an exit before the commit (a
 * die() on the way) or SIGINT, SIGTERM or SIGHUP meanwhile removes the
 * temporary file, and a file already there keeps its old contents. A name
 * that is no regular file (/dev/stdout, /dev/null, a FIFO) is written in
 * place: it cannot be replaced. One file is pending at a time. */
#ifndef SCHEDLAB_CLI_OUT_H
#define SCHEDLAB_CLI_OUT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct cli_out {
    const char *path;       /* the name given */
    char target[PATH_MAX];  /* what the rename replaces (a symlink's file) */
    char tmp[PATH_MAX];     /* the temporary file; "" when written in place */
    int fd;                 /* write here */
} cli_out;

/* Opens the file to write at o->fd; -1 with "PATH: cannot write: REASON"
 * in err. */
int cli_out_open(cli_out *o, const char *path, char *err, size_t n);

/* Closes it and puts it in place; -1 with "PATH: write failed: REASON" in
 * err, nothing left of it. */
int cli_out_commit(cli_out *o, char *err, size_t n);

/* Writes the whole of data[0..len) and commits (a file opened at a long
 * command's start, so that a name it cannot write is said before the
 * work); -1 with the reason, named, in err, nothing left of it. */
int cli_out_finish(cli_out *o, const char *data, size_t len, char *err, size_t n);

/* Closes and removes what was written (after a failed write). */
void cli_out_abort(cli_out *o);

/* The whole of data[0..len) as path, or to stdout for NULL; -1 with the
 * reason, named, in err. */
int cli_out_write(const char *path, const char *data, size_t len, char *err, size_t n);

#endif
