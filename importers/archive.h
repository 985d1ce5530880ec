/* archive.h -- several examiner result files in one upload: a tar archive
 * (ustar, GNU or pax; plain or compressed with gzip, bzip2 or xz) or a zip
 * archive is expanded, through libarchive, into one imp_file per regular
 * member whose name ends in ".json" -- directories, dot-files (macOS "._x"
 * resource forks) and anything under "__MACOSX/" are left out -- sorted by
 * name so the stream order does not depend on how the archive was made.
 * Each member is named "ARCHIVE(path/in/archive.json)".
 *
 * Memory: decompression means members cannot point into the archive, so
 * each member is copied out by libarchive 64 KB at a time into its own
 * unlinked temporary file (tmpfile.h: $TMPDIR, else /tmp; O_TMPFILE, so
 * nothing is ever left behind) and mapped read-only: the importers read it
 * as they read a mapped upload (a streaming import drops the pages it has
 * read, imp_stream.mapped), and the heap an expansion takes does not grow
 * with the members' size (issue 29). The archive may be freed at once.
 * Free the entries with imp_archive_free(), which unmaps each member's
 * data (the file goes with its mapping) and frees its name, then the array.
 * Each entry's name is followed, after its NUL, by one byte that says how
 * its data is owned (mapped here, or borrowed by imp_archive_borrow), so
 * entries of both kinds can share one array.
 *
 * Limits against zip bombs: at most IMP_ARCHIVE_MAX_MEMBERS members of any
 * kind, and expanded bytes (kept and skipped members together) of at most
 * IMP_ARCHIVE_MAX_RATIO times the archive's own size (but at least
 * IMP_ARCHIVE_RATIO_FLOOR, so small archives of JSON, which compresses
 * well, still open) and never more than IMP_ARCHIVE_MAX_BYTES. Reading stops
 * as soon as a limit is passed, so an 869-byte bomb costs at most the floor
 * in memory. */
#ifndef IMPORTERS_ARCHIVE_H
#define IMPORTERS_ARCHIVE_H

#include "importers.h"

#define IMP_ARCHIVE_MAX_MEMBERS 10000
#define IMP_ARCHIVE_MAX_BYTES (1LL << 30)
#define IMP_ARCHIVE_MAX_RATIO 100
#define IMP_ARCHIVE_RATIO_FLOOR (16LL << 20)

typedef enum imp_archive_kind {
    IMP_ARCHIVE_NONE = 0,
    IMP_ARCHIVE_TAR,
    IMP_ARCHIVE_ZIP,
    IMP_ARCHIVE_GZIP,            /* read as tar.gz */
    IMP_ARCHIVE_BZIP2,           /* read as tar.bz2 */
    IMP_ARCHIVE_XZ               /* read as tar.xz */
} imp_archive_kind;

/* From the first bytes: "ustar" at offset 257 (a tar: its header, or a
 * damaged one, unless the file opens as a SQLite database or a JSON
 * document: imp_archive_tar_header), "PK\3\4" (or "PK\5\6", an empty
 * zip), and the gzip, bzip2 and xz stream headers. */
imp_archive_kind imp_archive_detect(const unsigned char *data, size_t len);

/* Is h (len bytes) a tar header block: "ustar" at offset 257 and its
 * checksum right? */
bool imp_archive_tar_header(const unsigned char *h, size_t len);

/* Expand an archive. Returns 0 with *out and *nout set (at least one
 * member), or -1 with one line in err, e.g.
 *   "results.zip: member \"res/k1.json\": ZIP bad CRC: ..."
 *   "results.zip: no .json result files in the archive"
 *   "results.zip: member \"res/k1.json\": creating the temporary file to
 *    expand it into (in /tmp): No space left on device; the archive itself
 *    is not at fault". */
int imp_archive_expand(const imp_file *arc, imp_file **out, size_t *nout, char *err,
                       size_t errlen);
/* The same, and every member left out that someone put there (not a
 * directory, not macOS's "__MACOSX/", "._name" or ".DS_Store") is an
 * import warning on `warn` (importers.h imp_warn; NULL: none), e.g.
 *   "results.zip(notes/README.md): not read: only .json members of an
 *    archive are result files". */
int imp_archive_expand_warn(const imp_file *arc, trace *warn, imp_file **out, size_t *nout,
                            char *err, size_t errlen);
void imp_archive_free(imp_file *files, size_t n);

/* What the caller of imp_archive_explain_compressed wanted of the file:
 * one file (a format that reads no archive), an archive of examiner
 * results, or what pytorch reads (a trace, plain or gzip-compressed, or a
 * zip or tar of rank files: docs/pytorch.md). */
typedef enum {
    IMP_WANT_FILE,
    IMP_WANT_RESULTS,
    IMP_WANT_PYTORCH
} imp_archive_want;

/* imp_archive_expand_warn for the caller's format: a compressed stream
 * with no tar inside is said as imp_archive_explain_compressed says it
 * for `want` (imp_archive_expand_warn: IMP_WANT_RESULTS). */
int imp_archive_expand_for(const imp_file *arc, imp_archive_want want, trace *warn,
                           imp_file **out, size_t *nout, char *err, size_t errlen);

/* One line in err saying what the compressed stream `f` (gzip, bzip2 or
 * xz, with no tar inside) holds and what to do instead, from its first
 * inflated bytes: "run.csv.gz: a gzip-compressed nvprof-csv file; gunzip
 * it first (only PyTorch traces are read compressed)". `want`: what the
 * caller wanted, which the message says it is not ("..., not a tar or zip
 * of result files; ...", "..., not a PyTorch trace or a zip or tar of rank
 * files; unxz it first and import it as format nvprof-csv"). Only gzip is
 * read on its own (pytorch): a bzip2 or xz PyTorch trace is told to be
 * decompressed. A damaged stream is said as libarchive says it. */
void imp_archive_explain_compressed(const imp_file *f, imp_archive_want want, char *err,
                                    size_t errlen);

/* After a reader that inflates gzip itself (pytorch) refused the gzip
 * file `f` for its first bytes: when the inflated content is another
 * format's beyond doubt (a CSV of either kind, an SQLite export, a
 * schedlab trace), that is appended to err as 1bc5d03's hint is for a
 * plain file, with the unpacking to do: "run.csv.gz: byte 0 of the
 * decompressed JSON: unexpected '=' ... (its content is nvprof-csv's:
 * gunzip it and import it as format nvprof-csv)". Else err as it was. */
void imp_archive_hint_compressed(const imp_file *f, char *err, size_t errlen);

/* An entry for a plain file that sits beside archives in one upload: its
 * own name, the caller's bytes (not copied; they must outlive the entry),
 * so that imp_archive_free releases the name only. 0, or -1 out of memory. */
int imp_archive_borrow(const imp_file *f, imp_file *dst);

#endif
