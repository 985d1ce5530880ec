/* archive.c -- tar, tar.gz/bz2/xz and zip archives of examiner result files,
 * read with libarchive; see archive.h.
 *
 * libarchive rather than a hand-written reader: zip (deflate, data
 * descriptors, zip64) and the compressed tar variants are too much format
 * to re-implement safely. Only the tar and zip readers and the gzip, bzip2
 * and xz filters are enabled, not archive_read_support_*_all(): those add
 * filters that run external programs (lrzip, lzop, grzip) and formats
 * (iso9660, rar, cpio...) that nobody uploads results in, which would only
 * widen what untrusted upload bytes can reach. */
#include "archive.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

#include "formats.h"
#include "importers.h"
#include "sqlite_util.h"
#include "tmpfile.h"

/* A member is copied from libarchive to its temporary file this many bytes
 * at a time: the only buffer an expansion holds besides libarchive's own. */
#define BLOCK (64u << 10)

/* The byte after a name's NUL says what its data is (archive.h). */
#define OWN_MAPPED 'm'
#define OWN_BORROWED 'b'

/* the data of an empty member: nothing mapped, nothing to release */
static const unsigned char empty_member[1];

/* A ustar header block (POSIX.1 pax, "ustar Interchange Format"): "ustar"
 * at byte 257 and the checksum field (bytes 148..155: octal digits, after
 * leading spaces or NULs, ended by a space or NUL) equal to the sum of the
 * block's 512 bytes with the field itself counted as eight spaces, taken
 * unsigned or, as some old tars wrote it, signed (libarchive accepts
 * both). The magic alone is five bytes that a file of another format can
 * hold there (an nvprof SQLite export's first page did, under
 * fuzz_nvprof_sqlite: the import refused it as "a tar archive", while the
 * nvprof reader took it). */
bool imp_archive_tar_header(const unsigned char *h, size_t len) {
    if (len < 512 || memcmp(h + 257, "ustar", 5) != 0) return false;
    unsigned long want = 0;
    int digits = 0;
    for (int i = 148; i < 156; i++) {
        if (h[i] >= '0' && h[i] <= '7') {
            want = want * 8 + (unsigned long)(h[i] - '0');
            digits++;
        } else if (h[i] == ' ' || h[i] == '\0') {
            if (digits) break;
        } else {
            return false;
        }
    }
    if (!digits) return false;
    unsigned long sum = 0;
    long ssum = 0;
    for (int i = 0; i < 512; i++) {
        unsigned char c = i >= 148 && i < 156 ? ' ' : h[i];
        sum += c;
        ssum += (signed char)c;
    }
    return sum == want || (ssum >= 0 && (unsigned long)ssum == want);
}

imp_archive_kind imp_archive_detect(const unsigned char *data, size_t len) {
    if (!data) return IMP_ARCHIVE_NONE;
    if (len >= 4 && memcmp(data, "PK\x03\x04", 4) == 0) return IMP_ARCHIVE_ZIP;
    /* an empty zip is only its end-of-central-directory record (22 bytes) */
    if (len >= 22 && memcmp(data, "PK\x05\x06", 4) == 0) return IMP_ARCHIVE_ZIP;
    if (len >= 2 && data[0] == 0x1f && data[1] == 0x8b) return IMP_ARCHIVE_GZIP;
    /* "BZh", block size digit, then the block magic (BCD pi) */
    if (len >= 10 && memcmp(data, "BZh", 3) == 0 && data[3] >= '1' && data[3] <= '9' &&
        memcmp(data + 4, "\x31\x41\x59\x26\x53\x59", 6) == 0)
        return IMP_ARCHIVE_BZIP2;
    if (len >= 6 && memcmp(data, "\xfd" "7zXZ\x00", 6) == 0) return IMP_ARCHIVE_XZ;
    if (len >= 512 && memcmp(data + 257, "ustar", 5) == 0) {
        if (imp_archive_tar_header(data, len)) return IMP_ARCHIVE_TAR;
        /* the magic alone: a damaged tar (libarchive then says how), unless
         * the file opens as a format of its own that can hold those five
         * bytes there, a SQLite database or a JSON document */
        if (memcmp(data, "SQLite format 3", 16) == 0) return IMP_ARCHIVE_NONE;
        size_t i = len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
        while (i < 257 && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n'))
            i++;
        return data[i] == '{' || data[i] == '[' ? IMP_ARCHIVE_NONE : IMP_ARCHIVE_TAR;
    }
    return IMP_ARCHIVE_NONE;
}

/* NULL when the member is a result file to read; else why not, for the
 * import's warning (imp_warn), or "" for what an archiver adds on its own
 * and nobody put there: macOS's Finder zips a "__MACOSX/" tree of resource
 * forks, its tar adds "._name" next to each file, and the Finder leaves
 * ".DS_Store" in every folder. */
static const char *unwanted(const char *path) {
    if (strncmp(path, "__MACOSX/", 9) == 0 || strstr(path, "/__MACOSX/")) return "";
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t n = strlen(b);
    if (strncmp(b, "._", 2) == 0 || strcmp(b, ".DS_Store") == 0) return "";
    if (b[0] == '.') return "not read: a hidden file (its name starts with \".\") is not a result file";
    if (n > 5 && strcmp(b + n - 5, ".json") == 0) return NULL;
    return "not read: only .json members of an archive are result files";
}

/* Member names come from the upload; a newline in one would split the
 * one-line messages that quote it. */
static void one_line(char *s) {
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f) *s = '?';
}

static const char *la_msg(struct archive *a) {
    const char *m = archive_error_string(a);
    return m ? m : "unreadable archive data";
}

static int cmp_file(const void *a, const void *b) {
    return strcmp(((const imp_file *)a)->name, ((const imp_file *)b)->name);
}

/* A name followed, after its NUL, by how its data is owned. */
static char *tagged_name(const char *s, char own) {
    size_t n = strlen(s);
    char *t = malloc(n + 2);
    if (!t) return NULL;
    memcpy(t, s, n + 1);
    t[n + 1] = own;
    return t;
}

void imp_archive_free(imp_file *files, size_t n) {
    if (!files) return;
    for (size_t i = 0; i < n; i++) {
        const char *name = files[i].name;
        if (!name) continue;
        if (name[strlen(name) + 1] == OWN_MAPPED && files[i].data != empty_member)
            munmap((void *)files[i].data, files[i].len);
        free((void *)name);
    }
    free(files);
}

int imp_archive_borrow(const imp_file *f, imp_file *dst) {
    char *name = tagged_name(f->name ? f->name : "file", OWN_BORROWED);
    if (!name) return -1;
    *dst = (imp_file){name, f->data, f->len};
    return 0;
}

static int write_all(int fd, const unsigned char *p, size_t n) {
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            if (w == 0) errno = ENOSPC;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Copy the current member's bytes, BLOCK at a time, into an unlinked
 * temporary file and map it read-only, never writing more than `budget`
 * bytes. Returns 0, -1 on a read error (libarchive's message is in `a`), -2
 * past the budget, -4 when the temporary file cannot be created, written or
 * mapped (*step says which, errno why). */
static int read_member(struct archive *a, struct archive_entry *e, long long budget,
                       unsigned char *buf, const unsigned char **out, size_t *outlen,
                       const char **step) {
    long long declared = archive_entry_size_is_set(e) ? archive_entry_size(e) : 0;
    if (declared > budget) return -2;
    int fd = imp_tmp_fd("archive");
    if (fd < 0) {
        *step = "creating";
        return -4;
    }
    long long len = 0;
    int rc = 0;
    for (;;) {
        la_ssize_t got = archive_read_data(a, buf, BLOCK);
        if (got < 0) {
            rc = -1;
            break;
        }
        if (got == 0) break;
        len += got;
        if (len > budget) {
            rc = -2;
            break;
        }
        if (write_all(fd, buf, (size_t)got) < 0) {
            *step = "writing";
            rc = -4;
            break;
        }
    }
    const unsigned char *data = empty_member;
    if (rc == 0 && len > 0) {
        void *m = mmap(NULL, (size_t)len, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED) {
            *step = "mapping";
            rc = -4;
        } else {
            data = m;
        }
    }
    int keep = errno;
    close(fd);                   /* the mapping keeps the file until munmap */
    errno = keep;
    if (rc < 0) return rc;
    *out = data;
    *outlen = (size_t)len;
    return 0;
}

int imp_archive_expand(const imp_file *arc, imp_file **out, size_t *nout, char *err,
                       size_t errlen) {
    return imp_archive_expand_warn(arc, NULL, out, nout, err, errlen);
}

/* "ARCHIVE(path): why" as an import warning (importers.h imp_warn). */
static int warn_member(trace *t, const char *an, const char *path, const char *why) {
    if (!t || !*why) return 0;
    size_t need = strlen(an) + strlen(path) + 3;
    char *shown = malloc(need);
    if (!shown) return -1;
    snprintf(shown, need, "%s(%s)", an, path);
    int rc = imp_warn(t, shown, "%s", why);
    free(shown);
    return rc;
}

/* A compressed stream that is no tar (libarchive found no archive in it, or
 * no first member), or one given to a format that reads no archive: one
 * file compressed on its own, e.g. run.csv.gz. Say what it holds, from its
 * first inflated bytes, rather than libarchive's "Unrecognized archive
 * format" or the format's own first complaint, which read as if the bytes
 * were wrong: only a PyTorch trace is read compressed on its own
 * (pytorch.md), any other format wants the file decompressed first. Damage
 * in the stream itself (cut short, a bad CRC) is said as libarchive said
 * it. */
/* The first bytes (up to 64 KiB) of the compressed stream `arc` inflated
 * into *buf (malloc'd; the caller frees it), their count in *n. 0; 1 when
 * the stream is damaged, libarchive's words in why; -1 out of memory. */
static int peek_inflated(const imp_file *arc, unsigned char **buf, size_t *n, char *why,
                         size_t whylen) {
    enum { PEEK = 64 << 10 };
    *n = 0;
    *buf = malloc(PEEK);
    struct archive *a = *buf ? archive_read_new() : NULL;
    if (!a) {
        free(*buf);
        *buf = NULL;
        return -1;
    }
    archive_read_support_format_raw(a);
    archive_read_support_format_empty(a);       /* nothing compressed: no entry */
    archive_read_support_filter_gzip(a);
    archive_read_support_filter_bzip2(a);
    archive_read_support_filter_xz(a);
    struct archive_entry *e;
    bool damaged = false;
    int r0 = archive_read_open_memory(a, arc->data, arc->len);
    if (r0 == ARCHIVE_OK) r0 = archive_read_next_header(a, &e);
    if (r0 != ARCHIVE_OK) {
        damaged = r0 != ARCHIVE_EOF;
    } else {
        while (*n < PEEK) {
            la_ssize_t r = archive_read_data(a, *buf + *n, PEEK - *n);
            if (r < 0) damaged = true;
            if (r <= 0) break;
            *n += (size_t)r;
        }
    }
    if (damaged) snprintf(why, whylen, "%s", la_msg(a));
    archive_read_free(a);
    return damaged ? 1 : 0;
}

void imp_archive_explain_compressed(const imp_file *arc, imp_archive_want want, char *err,
                                    size_t errlen) {
    const char *an = arc->name ? arc->name : "archive";
    imp_archive_kind kind = imp_archive_detect(arc->data, arc->len);
    bool gz = kind == IMP_ARCHIVE_GZIP, bz = kind == IMP_ARCHIVE_BZIP2;
    const char *how = gz ? "a gzip" : bz ? "a bzip2" : "an xz";
    const char *unpack = gz ? "gunzip" : bz ? "bunzip2" : "unxz";
    bool of_results = want == IMP_WANT_RESULTS, pt = want == IMP_WANT_PYTORCH;
    /* what it is not: what the caller wanted */
    const char *not_tar = of_results ? ", not a tar or zip of result files"
                        : pt ? ", not a PyTorch trace or a zip or tar of rank files" : "";
    /* pytorch inflates gzip alone (pytorch_json.c expand: a gzip with no
     * tar is its file; docs/pytorch.md) */
    const char *only = gz ? "(only PyTorch traces are read compressed)"
                          : "(only PyTorch traces are read compressed, and only with gzip)";
    unsigned char *buf;
    size_t n;
    char why[256];
    int pr = peek_inflated(arc, &buf, &n, why, sizeof why);
    if (pr < 0) {
        snprintf(err, errlen, "%s: out of memory", an);
        return;
    }
    bool schema;
    imp_format text = pr || n == 0 ? IMP_UNKNOWN : imp_sniff_text(buf, n);
    if (pr)
        snprintf(err, errlen, "%s: %s: %s", an,
                 of_results ? "cannot read it as a tar, tar.gz or zip archive"
                            : gz ? "gzip" : bz ? "bzip2" : "xz",
                 why);
    else if (n == 0)
        snprintf(err, errlen, "%s: %s-compressed empty file: nothing to import", an, how);
    else if (imp_archive_detect(buf, n) == IMP_ARCHIVE_TAR)   /* a format that reads none */
        snprintf(err, errlen, "%s: %s-compressed tar archive; extract it first (only "
                 "examiner-json and pytorch read archives)", an, how);
    else if (imp_sql_is_sqlite(buf, n))
        snprintf(err, errlen, "%s: %s-compressed SQLite database (an nvprof or Nsight Systems "
                 "export)%s; %s it and import the database", an, how, not_tar, unpack);
    else if (imp_pytorch_detect(buf, n) && pt)
        snprintf(err, errlen, "%s: %s-compressed PyTorch profiler trace; pytorch reads a trace "
                 "plain or gzip-compressed: %s it first", an, how, unpack);
    else if (imp_pytorch_detect(buf, n) && gz)
        snprintf(err, errlen, "%s: %s-compressed PyTorch profiler trace%s; import it as format "
                 "pytorch", an, how, of_results ? ", not a tar or zip of examiner results" : "");
    else if (imp_pytorch_detect(buf, n))
        snprintf(err, errlen, "%s: %s-compressed PyTorch profiler trace%s; %s it and import it "
                 "as format pytorch (which reads a trace plain or gzip-compressed)", an, how,
                 of_results ? ", not a tar or zip of examiner results" : "", unpack);
    else if (text != IMP_UNKNOWN && pt)
        snprintf(err, errlen, "%s: %s-compressed %s file%s; %s it first and import it as "
                 "format %s", an, how, imp_format_name(text), not_tar, unpack,
                 imp_format_name(text));
    else if (text != IMP_UNKNOWN)
        snprintf(err, errlen, "%s: %s-compressed %s file%s; %s it first %s", an, how,
                 imp_format_name(text), not_tar, unpack, only);
    else if (imp_sniff_json_object(buf, n, &schema))
        snprintf(err, errlen, "%s: %s-compressed %s%s; %s it first%s%s", an, how,
                 schema ? "schedlab trace" : "JSON document", not_tar, unpack,
                 pt ? "" : " ", pt ? "" : only);
    else
        snprintf(err, errlen, "%s: %s-compressed file that is neither a tar archive nor a "
                 "trace this reads", an, how);
    free(buf);
}

void imp_archive_hint_compressed(const imp_file *f, char *err, size_t errlen) {
    if (imp_archive_detect(f->data, f->len) != IMP_ARCHIVE_GZIP || !err || !errlen) return;
    unsigned char *buf;
    size_t n;
    char why[256];
    int pr = peek_inflated(f, &buf, &n, why, sizeof why);
    if (pr) {                             /* damaged: the reader said so already */
        free(buf);
        return;
    }
    bool schema = false;
    imp_format g = imp_sniff_text(buf, n);
    const char *what = NULL;
    if (imp_pytorch_detect(buf, n)) what = NULL;              /* its own: the refusal stands */
    else if (imp_sql_is_sqlite(buf, n))
        what = "an SQLite database (an nvprof or Nsight Systems export): gunzip it and import "
               "the database";
    else if (g != IMP_UNKNOWN) what = imp_format_name(g);
    else if (imp_sniff_json_object(buf, n, &schema) && schema)
        what = "a schedlab trace: gunzip it and import it as format schedlab-trace";
    free(buf);
    if (!what) return;
    size_t used = strlen(err);
    if (used + 1 >= errlen) return;
    if (g != IMP_UNKNOWN)
        snprintf(err + used, errlen - used, " (its content is %s's: gunzip it and import it as "
                 "format %s)", what, what);
    else
        snprintf(err + used, errlen - used, " (its content is %s)", what);
}

int imp_archive_expand_warn(const imp_file *arc, trace *warn, imp_file **out, size_t *nout,
                            char *err, size_t errlen) {
    return imp_archive_expand_for(arc, IMP_WANT_RESULTS, warn, out, nout, err, errlen);
}

int imp_archive_expand_for(const imp_file *arc, imp_archive_want want, trace *warn,
                           imp_file **out, size_t *nout, char *err, size_t errlen) {
    const char *an = arc->name ? arc->name : "archive";
    imp_file *files = NULL;
    size_t n = 0, cap = 0, members = 0;
    long long total = 0;
    /* the expanded size allowed: by ratio to the archive, within floor and cap */
    long long limit = (long long)arc->len > IMP_ARCHIVE_MAX_BYTES / IMP_ARCHIVE_MAX_RATIO
                          ? IMP_ARCHIVE_MAX_BYTES
                          : (long long)arc->len * IMP_ARCHIVE_MAX_RATIO;
    if (limit < IMP_ARCHIVE_RATIO_FLOOR) limit = IMP_ARCHIVE_RATIO_FLOOR;
    const char *path = "";
    char prev[256] = "";         /* the entry (and its path) is reused per header */
    *out = NULL;
    *nout = 0;
    unsigned char *buf = malloc(BLOCK);
    struct archive *a = buf ? archive_read_new() : NULL;
    if (!a) goto oom;
    archive_read_support_format_tar(a);
    archive_read_support_format_zip(a);
    archive_read_support_filter_gzip(a);
    archive_read_support_filter_bzip2(a);
    archive_read_support_filter_xz(a);
    imp_archive_kind kind = imp_archive_detect(arc->data, arc->len);
    bool compressed =
        kind == IMP_ARCHIVE_GZIP || kind == IMP_ARCHIVE_BZIP2 || kind == IMP_ARCHIVE_XZ;
    if (archive_read_open_memory(a, arc->data, arc->len) != ARCHIVE_OK) {
        if (compressed) imp_archive_explain_compressed(arc, want, err, errlen);
        else snprintf(err, errlen, "%s: cannot read it as a tar, tar.gz or zip archive: %s", an,
                      la_msg(a));
        goto bad;
    }
    for (;;) {
        struct archive_entry *e;
        int r = archive_read_next_header(a, &e);
        if (r == ARCHIVE_EOF) break;
        /* A warning (e.g. a name's charset) still gives an entry. RETRY is a
         * damaged header that libarchive would skip past: a result file
         * silently dropped, so it is an error here. */
        if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
            if (members == 0)
                snprintf(err, errlen, "%s: first member: %s", an, la_msg(a));
            else
                snprintf(err, errlen, "%s: member after \"%s\": %s", an, prev, la_msg(a));
            goto bad;
        }
        if (++members > IMP_ARCHIVE_MAX_MEMBERS) {
            snprintf(err, errlen, "%s: more than %d members; split the archive", an,
                     IMP_ARCHIVE_MAX_MEMBERS);
            goto bad;
        }
        path = archive_entry_pathname(e);
        if (!path) path = "?";
        snprintf(prev, sizeof prev, "%s", path);
        mode_t type = archive_entry_filetype(e);
        const char *left = type == AE_IFREG ? unwanted(path)
                        : type == AE_IFDIR ? ""
                        : "not read: a link or special file, not a regular file";
        if (left) {
            if (warn_member(warn, an, path, left) < 0) goto oom;
            /* skipped bytes still cost decompression time */
            if (archive_entry_size_is_set(e) && archive_entry_size(e) > 0)
                total += archive_entry_size(e);
            if (total > limit) goto too_big;
            continue;
        }
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 8;
            imp_file *nf = realloc(files, ncap * sizeof *nf);
            if (!nf) goto oom;
            files = nf;
            cap = ncap;
        }
        size_t need = strlen(an) + strlen(path) + 4;
        char *shown = malloc(need);
        if (!shown) goto oom;
        snprintf(shown, need, "%s(%s)", an, path);
        one_line(shown);
        shown[strlen(shown) + 1] = OWN_MAPPED;
        const unsigned char *data = NULL;
        size_t len = 0;
        const char *step = "";
        int rr = read_member(a, e, limit - total, buf, &data, &len, &step);
        int why = errno;
        if (rr < 0) free(shown);
        if (rr == -1) {
            snprintf(err, errlen, "%s: member \"%s\": %s", an, path, la_msg(a));
            goto bad;
        }
        if (rr == -2) goto too_big;
        if (rr == -4) {
            /* the server's (or the CLI's) disk, not the upload */
            snprintf(err, errlen, "%s: member \"%s\": %s the temporary file to expand it into "
                     "(in %s): %s; the archive itself is not at fault", an, path, step,
                     imp_tmp_dir(), strerror(why));
            goto bad;
        }
        total += (long long)len;
        files[n++] = (imp_file){shown, data, len};
    }
    if (n == 0) {
        snprintf(err, errlen, "%s: no .json result files in the archive", an);
        goto bad;
    }
    archive_read_free(a);
    free(buf);
    if (n > 1) qsort(files, n, sizeof *files, cmp_file);
    *out = files;
    *nout = n;
    return 0;
too_big:
    snprintf(err, errlen, "%s: member \"%s\": the archive expands to more than %lld MiB (at "
             "most %d times its %zu bytes, at least %lld MiB, at most %lld MiB); split it", an,
             path, limit >> 20, IMP_ARCHIVE_MAX_RATIO, arc->len, IMP_ARCHIVE_RATIO_FLOOR >> 20,
             IMP_ARCHIVE_MAX_BYTES >> 20);
    goto bad;
oom:
    snprintf(err, errlen, "%s: out of memory expanding the archive", an);
bad:
    one_line(err);
    archive_read_free(a);
    free(buf);
    imp_archive_free(files, n);
    return -1;
}
