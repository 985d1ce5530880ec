/* archive.h -- several examiner result files in one upload: a tar archive
 * (ustar or GNU, uncompressed) is expanded into one imp_file per member
 * ending in ".json", sorted by name so the stream order does not depend on
 * how the archive was made.
 *
 * Memory: the expanded files point into the archive's own bytes (no copy);
 * their names live in one block owned by the returned array. Free both with
 * imp_archive_free(); the archive must outlive them. */
#ifndef IMPORTERS_ARCHIVE_H
#define IMPORTERS_ARCHIVE_H

#include "importers.h"

typedef enum imp_archive_kind {
    IMP_ARCHIVE_NONE = 0,
    IMP_ARCHIVE_TAR,
    IMP_ARCHIVE_ZIP,         /* recognised, to say what to do instead */
    IMP_ARCHIVE_GZIP
} imp_archive_kind;

imp_archive_kind imp_archive_detect(const unsigned char *data, size_t len);

/* Expand a tar archive. Returns 0 with *out and *nout set (at least one member),
 * or -1 with "name: place: problem" in err. */
int imp_archive_expand(const imp_file *tar, imp_file **out, size_t *nout, char *err,
                       size_t errlen);
void imp_archive_free(imp_file *files, size_t n);

#endif
