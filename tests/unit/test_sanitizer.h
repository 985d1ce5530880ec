/* test_sanitizer.h -- TEST_UNDER_ASAN: 1 in the ASan/UBSan build of the unit
 * tests (make test runs every test twice, plain and so), else 0.
 *
 * The plain run checks what the papers and recordings say on every input;
 * the sanitizer run is there for memory errors and undefined behaviour,
 * which a test's code paths show on a few of its inputs as well as on all
 * of them. A test whose inputs are many or large (hundreds of random task
 * sets, a 38 M-block trace) takes a representative part of them under the
 * sanitizers, where it runs 5-12 times slower, and says so on its output;
 * the assertions that need the whole set stay in the plain run. */
#ifndef TEST_SANITIZER_H
#define TEST_SANITIZER_H

#if defined(__SANITIZE_ADDRESS__)
#define TEST_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TEST_UNDER_ASAN 1
#endif
#endif
#ifndef TEST_UNDER_ASAN
#define TEST_UNDER_ASAN 0
#endif

#endif
