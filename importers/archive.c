/* archive.c -- tar archives of examiner result files; see archive.h.
 *
 * Only uncompressed tar is read (POSIX ustar and GNU, with GNU long names):
 * its layout is a sequence of 512-byte headers each followed by the member's
 * bytes padded to 512, so members can be handed out in place. Compressed
 * archives are recognised only to tell the user how to repack them; that
 * keeps the importers free of a decompression dependency. */
#include "archive.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAR_BLOCK 512

imp_archive_kind imp_archive_detect(const unsigned char *data, size_t len) {
    if (len >= 4 && memcmp(data, "PK\x03\x04", 4) == 0) return IMP_ARCHIVE_ZIP;
    if (len >= 2 && data[0] == 0x1f && data[1] == 0x8b) return IMP_ARCHIVE_GZIP;
    if (len >= TAR_BLOCK && memcmp(data + 257, "ustar", 5) == 0) return IMP_ARCHIVE_TAR;
    return IMP_ARCHIVE_NONE;
}

/* Octal field, NUL/space terminated; -1 if malformed or too large. */
static long long octal(const unsigned char *p, size_t n) {
    long long v = 0;
    size_t i = 0;
    while (i < n && p[i] == ' ') i++;
    bool any = false;
    for (; i < n && p[i] >= '0' && p[i] <= '7'; i++) {
        if (v > (0x7fffffffffffLL >> 3)) return -1;
        v = v * 8 + (p[i] - '0');
        any = true;
    }
    for (; i < n; i++)
        if (p[i] != ' ' && p[i] != '\0') return -1;
    return any ? v : -1;
}

static bool all_zero(const unsigned char *p) {
    for (size_t i = 0; i < TAR_BLOCK; i++)
        if (p[i]) return false;
    return true;
}

static bool wanted(const char *path) {
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t n = strlen(b);
    /* macOS tar adds "._name" resource forks next to each file */
    return n > 5 && strcmp(b + n - 5, ".json") == 0 && strncmp(b, "._", 2) != 0;
}

static int cmp_file(const void *a, const void *b) {
    return strcmp(((const imp_file *)a)->name, ((const imp_file *)b)->name);
}

void imp_archive_free(imp_file *files, size_t n) {
    if (!files) return;
    for (size_t i = 0; i < n; i++) free((void *)files[i].name);
    free(files);
}

int imp_archive_expand(const imp_file *tar, imp_file **out, size_t *nout, char *err,
                       size_t errlen) {
    const char *an = tar->name ? tar->name : "archive.tar";
    const unsigned char *d = tar->data;
    size_t len = tar->len, pos = 0;
    imp_file *files = NULL;
    size_t n = 0, cap = 0;
    char *longname = NULL;
    *out = NULL;
    *nout = 0;
    while (pos + TAR_BLOCK <= len) {
        const unsigned char *h = d + pos;
        if (all_zero(h)) break;
        long long sum = octal(h + 148, 8);
        long long calc = 0;
        for (size_t i = 0; i < TAR_BLOCK; i++) calc += (i >= 148 && i < 156) ? ' ' : h[i];
        if (sum != calc) {
            snprintf(err, errlen, "%s: byte %zu: bad tar header checksum (not a tar archive, "
                                  "or a damaged one)", an, pos);
            goto bad;
        }
        long long size = octal(h + 124, 12);
        if (size < 0) {
            snprintf(err, errlen, "%s: byte %zu: unreadable member size", an, pos);
            goto bad;
        }
        size_t body = pos + TAR_BLOCK;
        if ((unsigned long long)size > len - body) {
            snprintf(err, errlen, "%s: byte %zu: archive truncated inside a member", an, pos);
            goto bad;
        }
        char type = (char)h[156];
        if (type == 'L') {           /* GNU: the next member's long name */
            free(longname);
            longname = malloc((size_t)size + 1);
            if (!longname) goto oom;
            memcpy(longname, d + body, (size_t)size);
            longname[size] = '\0';
        } else if (type == '0' || type == '\0') {
            char *name;
            if (longname) {
                name = longname;
                longname = NULL;
            } else {
                char prefix[156], base[101];
                memcpy(prefix, h + 345, 155);
                prefix[155] = '\0';
                memcpy(base, h, 100);
                base[100] = '\0';
                size_t need = strlen(prefix) + strlen(base) + 2;
                name = malloc(need);
                if (!name) goto oom;
                snprintf(name, need, "%s%s%s", prefix, *prefix ? "/" : "", base);
            }
            if (wanted(name)) {
                size_t need = strlen(an) + strlen(name) + 3;
                char *shown = malloc(need);
                if (!shown) {
                    free(name);
                    goto oom;
                }
                snprintf(shown, need, "%s(%s)", an, name);
                free(name);
                if (n == cap) {
                    size_t ncap = cap ? cap * 2 : 8;
                    imp_file *nf = realloc(files, ncap * sizeof *nf);
                    if (!nf) {
                        free(shown);
                        goto oom;
                    }
                    files = nf;
                    cap = ncap;
                }
                files[n++] = (imp_file){shown, d + body, (size_t)size};
            } else {
                free(name);
            }
        } else {
            /* directories, links, pax headers: nothing to import */
            free(longname);
            longname = NULL;
        }
        size_t padded = ((size_t)size + TAR_BLOCK - 1) / TAR_BLOCK * TAR_BLOCK;
        if (padded > len - body) break;   /* last member without its padding */
        pos = body + padded;
    }
    free(longname);
    longname = NULL;
    if (n == 0) {
        snprintf(err, errlen, "%s: the archive holds no .json result files", an);
        goto bad;
    }
    qsort(files, n, sizeof *files, cmp_file);
    *out = files;
    *nout = n;
    return 0;
oom:
    snprintf(err, errlen, "%s: out of memory expanding the archive", an);
bad:
    free(longname);
    imp_archive_free(files, n);
    return -1;
}
