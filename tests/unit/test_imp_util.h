/* test_imp_util.h -- helpers shared by the importer tests (test_imp_*.c).
 * Include after <cmocka.h>; static inline, so each test binary carries only
 * what it uses. */
#ifndef TEST_IMP_UTIL_H
#define TEST_IMP_UTIL_H

#include <stdio.h>
#include <stdlib.h>

/* The bytes of a file under ../shared (SCHEDLAB_SHARED, set by the Makefile);
 * fails the test when it cannot be read. The caller frees the buffer. */
static inline unsigned char *read_shared(const char *rel, size_t *len) {
    const char *root = getenv("SCHEDLAB_SHARED");
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", root ? root : "../shared", rel);
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot open %s (set SCHEDLAB_SHARED)", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return buf;
}

#endif
