/* fuzz_detect.c -- libFuzzer harness: format detection, the tar reader and
 * the demangler on any bytes. Detection must name a format or
 * IMP_UNKNOWN; the tar reader and demangler must fail cleanly. */
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

    if (imp_archive_detect(data, size) == IMP_ARCHIVE_TAR) {
        imp_file *members;
        size_t n;
        char err[512];
        if (imp_archive_expand(&f, &members, &n, err, sizeof err) == 0) {
            for (size_t i = 0; i < n; i++)
                if (members[i].data < data || members[i].data + members[i].len > data + size)
                    abort();
            imp_archive_free(members, n);
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
