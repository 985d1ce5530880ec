/* fuzz_detect.c -- libFuzzer harness: format detection, the archive reader
 * (tar, tar.gz/bz2/xz, zip) and the demangler on any bytes. Detection must
 * name a format or IMP_UNKNOWN; the archive reader and demangler must fail
 * cleanly. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../importers/archive.h"
#include "../importers/formats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    imp_file f = {"fuzz.bin", data, size};
    imp_format fmt = imp_detect(&f);
    if (fmt < IMP_UNKNOWN || fmt >= IMP_FORMAT_COUNT) abort();
    /* the descriptors' content tests never both say yes (so their order in
     * IMP_FORMATS decides nothing), and a yes is what imp_detect answers */
    int yes = 0;
    for (int i = 0; i < IMP_FORMAT_COUNT; i++) {
        const imp_importer *im = imp_importer_get((imp_format)i);
        if (im->detect && im->detect(&f)) {
            if (yes++ || fmt != (imp_format)i) abort();
        }
    }

    if (imp_archive_detect(data, size) != IMP_ARCHIVE_NONE) {
        imp_file *members;
        size_t n;
        char err[512] = "";
        if (imp_archive_expand(&f, &members, &n, err, sizeof err) == 0) {
            /* members are mapped temporary files: reading each byte
             * checks the lengths (past a mapping's last page is a fault);
             * the limits and the name order must hold */
            size_t total = 0;
            volatile unsigned sum = 0;
            for (size_t i = 0; i < n; i++) {
                for (size_t b = 0; b < members[i].len; b++) sum += members[i].data[b];
                total += members[i].len;
                if (strlen(members[i].name) < 8 || (i && strcmp(members[i - 1].name,
                                                                members[i].name) > 0))
                    abort();
            }
            if (n == 0 || n > IMP_ARCHIVE_MAX_MEMBERS || total > (size_t)IMP_ARCHIVE_MAX_BYTES)
                abort();
            imp_archive_free(members, n);
        } else if (err[0] == '\0' || strchr(err, '\n')) {
            abort();
        }
    }

    /* the input as a symbol name: "_Z" + bytes up to the first NUL */
    char *name = malloc(size + 3);
    if (!name) return 0;
    memcpy(name, "_Z", 2);
    memcpy(name + 2, data, size);
    name[size + 2] = '\0';
    char buf[4096];
    const char *d = imp_demangle(name, buf, sizeof buf);
    if (d && strlen(d) >= sizeof buf) abort();
    free(name);
    return 0;
}
