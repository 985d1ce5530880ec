/* tmpfile.h -- an unlinked temporary file for an import's spill data (the
 * pytorch importer's sorted runs, an archive's expanded members).
 *
 * The file is created in $TMPDIR (else /tmp) with O_TMPFILE, so it never has
 * a name and nothing is left behind on a crash; where the kernel or the file
 * system lacks O_TMPFILE it is made with mkstemp and unlinked at once.
 * Closing the descriptor (and unmapping any mapping of it) frees it. */
#ifndef IMPORTERS_TMPFILE_H
#define IMPORTERS_TMPFILE_H

/* A read-write descriptor (close-on-exec), or -1 with errno set. `tag`
 * names the file in the mkstemp fallback ("schedlab-TAG-XXXXXX").
 * imp_tmp_fd_in: in folder dir (the server's upload folder) instead. */
int imp_tmp_fd(const char *tag);
int imp_tmp_fd_in(const char *dir, const char *tag);

/* The directory imp_tmp_fd creates files in, for messages. */
const char *imp_tmp_dir(void);

#endif
