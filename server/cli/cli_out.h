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

/* cli_out_open's and cli_out_check's answer for a name refused as bad
 * input (docs/cli.md: exit 2), not a failure to write it */
#define CLI_OUT_REFUSED (-2)

typedef struct cli_out {
    const char *path;       /* the name given */
    char target[PATH_MAX];  /* what the rename replaces (a symlink's file) */
    char tmp[PATH_MAX];     /* the temporary file; "" when written in place */
    int fd;                 /* write here */
} cli_out;

/* Whether path may be replaced: CLI_OUT_REFUSED, said in err, for a
 * regular file with other hard links (st_nlink > 1): the rename would put
 * the new text under this name alone and leave the other names the old
 * text, and writing in place instead would lose the whole-or-nothing
 * promise, so neither is done; 0 otherwise (also for a name not there). */
int cli_out_check(const char *path, char *err, size_t n);

/* Whether path names the same file as other: where both exist, one
 * st_dev and st_ino (symlinks followed); where neither does, one folder
 * (its real path) and one name. An output onto a command's input database
 * would replace the database (export -o x.db of x.db). */
bool cli_out_same_file(const char *path, const char *other);

/* Opens the file to write at o->fd, an existing file's permission bits
 * kept; -1 with "PATH: cannot write: REASON" in err, or CLI_OUT_REFUSED
 * (cli_out_check). */
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

/* The whole of data[0..len) as path, or to stdout for NULL; -1 (or
 * CLI_OUT_REFUSED) with the reason, named, in err. */
int cli_out_write(const char *path, const char *data, size_t len, char *err, size_t n);

#endif
