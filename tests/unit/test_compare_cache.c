/* test_compare_cache.c -- the kernel tables of GET /api/compare kept per run
 * list (server/http/compare_cache.c, issue 15): a hit is a copy of exactly the
 * bytes put, a key put again replaces its text, the least recently used
 * list goes first when the entries run out, the byte limit evicts too, and
 * a text over a quarter of it is never kept. The cache is process-wide, so
 * each test uses keys of its own and counts only what it can know. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../server/http/compare_cache.h"

/* Whether key holds exactly `want`. */
static void expect_text(const char *key, const char *want) {
    char *t = NULL;
    size_t n = 99;
    if (!want) {
        assert_false(cmpcache_get(key, &t, &n));
        assert_null(t);
        assert_int_equal(n, 0);
        return;
    }
    assert_true(cmpcache_get(key, &t, &n));
    assert_int_equal(n, strlen(want));
    assert_string_equal(t, want);
    free(t);
}

static void test_hit_is_the_bytes_put(void **state) {
    (void)state;
    expect_text("a@1;b@2;", NULL);
    cmpcache_put("a@1;b@2;", "[{\"name\":\"K1\"}]xyz", 15);   /* only the first 15 bytes */
    expect_text("a@1;b@2;", "[{\"name\":\"K1\"}]");
    /* another order is another key */
    expect_text("b@2;a@1;", NULL);
    /* put again: replaced, not a second entry */
    size_t before = cmpcache_count();
    cmpcache_put("a@1;b@2;", "[]", 2);
    expect_text("a@1;b@2;", "[]");
    assert_int_equal(cmpcache_count(), before);
}

static void test_least_recently_used_goes_first(void **state) {
    (void)state;
    char key[32];
    /* fill every slot with lists of this test */
    for (int i = 0; i < CMPCACHE_ENTRIES; i++) {
        snprintf(key, sizeof key, "lru%d;", i);
        cmpcache_put(key, key, strlen(key));
    }
    assert_int_equal(cmpcache_count(), CMPCACHE_ENTRIES);
    /* lru0 used now: lru1 is the oldest */
    expect_text("lru0;", "lru0;");
    cmpcache_put("new;", "N", 1);
    assert_int_equal(cmpcache_count(), CMPCACHE_ENTRIES);
    expect_text("lru1;", NULL);
    expect_text("lru0;", "lru0;");
    expect_text("lru2;", "lru2;");
    expect_text("new;", "N");
}

static void test_byte_limit(void **state) {
    (void)state;
    /* a quarter of the limit plus one: never kept */
    size_t big = CMPCACHE_BYTES / 4 + 1;
    char *t = malloc(big);
    assert_non_null(t);
    memset(t, 'x', big);
    cmpcache_put("too-big;", t, big);
    expect_text("too-big;", NULL);
    /* four of a quarter each fill the limit: a fifth pushes the oldest out */
    size_t q = CMPCACHE_BYTES / 4;
    for (int i = 0; i < 4; i++) {
        char key[16];
        snprintf(key, sizeof key, "q%d;", i);
        t[0] = (char)('0' + i);
        cmpcache_put(key, t, q);
    }
    t[0] = '4';
    cmpcache_put("q4;", t, q);
    char *got = NULL;
    size_t n = 0;
    assert_false(cmpcache_get("q0;", &got, &n));
    for (int i = 1; i <= 4; i++) {
        char key[16];
        snprintf(key, sizeof key, "q%d;", i);
        assert_true(cmpcache_get(key, &got, &n));
        assert_int_equal(n, q);
        assert_int_equal(got[0], '0' + i);
        assert_int_equal(got[q - 1], 'x');
        assert_int_equal(got[q], '\0');
        free(got);
    }
    free(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hit_is_the_bytes_put),
        cmocka_unit_test(test_least_recently_used_goes_first),
        cmocka_unit_test(test_byte_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
