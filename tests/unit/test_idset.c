/* test_idset.c -- the id lists of /occupancy's `kernels` and /streams'
 * `names` (server/formats/idset.c): the exact set, and the exact message for each
 * way a list can be wrong. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "../../server/formats/idset.h"

static const idset_words kernels = {"kernels", "a kernel id", "ids", "a kernel"};
static const idset_words names = {"names", "a name index", "indices", "a kernel name"};

static void test_sets(void **state) {
    (void)state;
    uint8_t bits[4] = {0};
    char err[256];
    assert_true(idset_parse(&kernels, "3-7,12,0", 20, bits, err, sizeof err));
    assert_int_equal(bits[0], 0xf9);   /* 0, 3..7 */
    assert_int_equal(bits[1], 0x10);   /* 12 */
    assert_int_equal(bits[2], 0);
    memset(bits, 0, sizeof bits);
    assert_true(idset_parse(&kernels, "", 20, bits, err, sizeof err));   /* no kernel */
    assert_int_equal(bits[0] | bits[1] | bits[2], 0);
    assert_true(idset_parse(&kernels, "19,19-19", 20, bits, err, sizeof err));
    assert_int_equal(bits[2], 0x08);
    /* the ETag's hash depends on the set only */
    uint8_t a[2] = {0}, b[2] = {0};
    assert_true(idset_parse(&kernels, "1,2,3", 9, a, err, sizeof err));
    assert_true(idset_parse(&kernels, "1-3", 9, b, err, sizeof err));
    assert_int_equal(idset_hash(a, 2), idset_hash(b, 2));
    b[1] = 1;
    assert_int_not_equal(idset_hash(a, 2), idset_hash(b, 2));
}

static void expect_error(const idset_words *w, const char *s, int64_t n, const char *msg) {
    uint8_t bits[8] = {0};
    char err[256] = "";
    assert_false(idset_parse(w, s, n, bits, err, sizeof err));
    assert_string_equal(err, msg);
}

static void test_errors(void **state) {
    (void)state;
    expect_error(&kernels, "3-x", 16, "kernels: \"3-x\" at character 1: expected a kernel id after '-'");
    expect_error(&kernels, "7-3", 16, "kernels: range 7-3 at character 1 runs backwards");
    expect_error(&kernels, "1,16", 16, "kernels: 16 is not a kernel of the run (ids 0..15)");
    expect_error(&kernels, "1;2", 16, "kernels: \";2\" at character 2: expected ',' between ids");
    expect_error(&kernels, ",1", 16, "kernels: \",1\" at character 1: expected a kernel id");
    expect_error(&kernels, "99999999999", 16, "kernels: \"99999999999\" at character 1: expected a kernel id");
    expect_error(&names, "0-2,x", 3, "names: \"x\" at character 5: expected a name index");
    expect_error(&names, "3", 3, "names: 3 is not a kernel name of the run (indices 0..2)");
    expect_error(&names, "0", 0, "names: 0 is not a kernel name of the run (it has none)");
    /* a control byte from the URL never breaks the message's line */
    expect_error(&kernels, "-\n2", 4, "kernels: \"-?2\" at character 1: expected a kernel id");
    expect_error(&kernels, "-\x7f" "2", 4, "kernels: \"-?2\" at character 1: expected a kernel id");
    /* ids within 0..INT32_MAX: the largest is read (and is past the run) */
    expect_error(&kernels, "2147483647", 16, "kernels: 2147483647 is not a kernel of the run (ids 0..15)");
    expect_error(&kernels, "2147483648", 16,
                 "kernels: \"2147483648\" at character 1: expected a kernel id");
    /* a range one short of empty is backwards too */
    expect_error(&kernels, "3-2", 16, "kernels: range 3-2 at character 1 runs backwards");
    /* the echo stops at 40 characters */
    expect_error(&kernels, "1,x123456789012345678901234567890123456789EXTRA", 16,
                 "kernels: \"x123456789012345678901234567890123456789\" at character 3: "
                 "expected a kernel id");
}

/* idset_hash is 64-bit FNV-1a (offset basis 14695981039346656037, prime
 * 1099511628211; the published test vector: "a" -> 0xaf63dc4c8601ec8c) */
static void test_hash_fnv1a(void **state) {
    (void)state;
    const uint8_t a[] = {'a'};
    assert_true(idset_hash(a, 0) == UINT64_C(14695981039346656037));
    assert_true(idset_hash(a, 1) == UINT64_C(0xaf63dc4c8601ec8c));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sets),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_hash_fnv1a),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
