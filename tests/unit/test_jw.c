/* test_jw.c -- the JSON writer of the hot paths (server/formats/jw.c): integers at
 * the ends of their range, string escaping and UTF-8 repair, doubles that
 * read back exactly, nesting with commas, and the streaming modes (push to
 * a sink, pull for HTTP, the trace writer in steps) giving byte for byte
 * what the whole-buffer mode gives, wherever the chunk boundaries fall. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../server/formats/jw.h"
#include "../../server/formats/trace_json.h"

/* The text of a whole-buffer writer, checked and freed. */
static void expect(jw_buf *w, const char *want) {
    assert_false(w->oom);
    assert_int_equal(w->len, strlen(want));
    assert_string_equal(w->s, want);
    jw_free(w);
}

static void test_integers(void **state) {
    (void)state;
    jw_buf w = {0};
    jw_arr(&w);
    jw_i64(&w, 0);
    jw_i64(&w, -1);
    jw_i64(&w, INT64_MIN);
    jw_i64(&w, INT64_MAX);
    jw_u64(&w, UINT64_MAX);
    jw_i64(&w, 9);
    jw_i64(&w, 10);
    jw_i64(&w, 99);
    jw_i64(&w, 100);
    jw_i64(&w, -1000000007);
    jw_end(&w);
    expect(&w, "[0,-1,-9223372036854775808,9223372036854775807,18446744073709551615,9,10,99,"
               "100,-1000000007]");
    /* every power of ten and its neighbours, as printf writes them */
    char a[32], b[32];
    for (int64_t p = 1; p <= INT64_MAX / 10; p *= 10) {
        const int64_t vs[] = {p - 1, p, p + 1, -p, -(p - 1), -(p + 1)};
        for (size_t i = 0; i < sizeof vs / sizeof *vs; i++) {
            size_t n = jw_fmt_i64(a, vs[i]);
            a[n] = '\0';
            snprintf(b, sizeof b, "%" PRId64, vs[i]);
            assert_string_equal(a, b);
        }
    }
    uint64_t x = 0x9e3779b97f4a7c15u;
    for (int i = 0; i < 10000; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        size_t n = jw_fmt_u64(a, x >> (i % 64));
        a[n] = '\0';
        snprintf(b, sizeof b, "%" PRIu64, x >> (i % 64));
        assert_string_equal(a, b);
    }
}

static void test_strings(void **state) {
    (void)state;
    jw_buf w = {0};
    jw_str(&w, "a\"b\\c\n\t\r\x01\x1f/é€😀");
    expect(&w, "\"a\\\"b\\\\c\\n\\t\\r\\u0001\\u001f/é€😀\"");
    /* bad UTF-8: a stray continuation byte, an overlong '/', a surrogate,
     * a lead byte cut off by the end: each bad byte is one U+FFFD */
    jw_str(&w, "x\x80y\xc0\xafz\xed\xa0\x80");
    expect(&w, "\"x\xef\xbf\xbdy\xef\xbf\xbd\xef\xbf\xbdz\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");
    jw_strn(&w, "a\0b\xe2\x82", 5);   /* NUL kept as \u0000; "€" cut short */
    expect(&w, "\"a\\u0000b\xef\xbf\xbd\xef\xbf\xbd\"");
    /* the other ways a sequence is bad, each byte of it one U+FFFD where
     * no valid sequence starts: an overlong three-byte "¢" (E0 82 A2), a
     * lead byte past F4 (F5), a code point past U+10FFFF (F4 90 80 80), a
     * lead byte followed by another lead byte (E2 C2 AC: then C2 AC is
     * "¬", whole) */
    jw_str(&w, "\xe0\x82\xa2|\xf5\x80\x80\x80|\xf4\x90\x80\x80|\xe2\xc2\xac");
    expect(&w, "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd|"
               "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd|"
               "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd|"
               "\xef\xbf\xbd\xc2\xac\"");
    /* a length that cuts a whole "€" (E2 82 AC) before its last byte: what
     * lies past the length is not read */
    jw_strn(&w, "\xe2\x82\xac", 2);
    expect(&w, "\"\xef\xbf\xbd\xef\xbf\xbd\"");
    jw_str(&w, NULL);
    expect(&w, "null");
    /* the trace writer's strings are jw's */
    tj_buf t = {0};
    tj_put_str(&t, "k\"\x7f");
    expect(&t, "\"k\\\"\x7f\"");
}

static void test_doubles(void **state) {
    (void)state;
    jw_buf w = {0};
    jw_arr(&w);
    jw_f64(&w, 0.1);
    jw_f64(&w, -2.5);
    jw_f64(&w, 3);
    jw_f64(&w, INFINITY);
    jw_f64(&w, NAN);
    jw_f64(&w, 1e300);
    jw_end(&w);
    expect(&w, "[0.10000000000000001,-2.5,3,null,null,1.0000000000000001e+300]");
    /* %.17g reads back as the same double, whatever it is */
    uint64_t x = 88172645463325252u;
    for (int i = 0; i < 5000; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        double d;
        memcpy(&d, &x, sizeof d);
        if (!isfinite(d)) continue;
        jw_f64(&w, d);
        assert_false(w.oom);
        assert_true(strtod(w.s, NULL) == d);
        jw_free(&w);
    }
    /* JSON_REAL_PRECISION(10) as jansson writes it */
    const double vs[] = {1.0, 0.0, -0.0, 1e20, 1.5e-7, 123456789012.0, 0.1, 2.0 / 3.0, -1e-300,
                         65536.25};
    for (size_t i = 0; i < sizeof vs / sizeof *vs; i++) {
        json_t *j = json_real(vs[i]);
        char *want = json_dumps(j, JSON_ENCODE_ANY | JSON_REAL_PRECISION(10));
        jw_f64_prec(&w, vs[i], 10);
        assert_false(w.oom);
        assert_string_equal(w.s, want);
        jw_free(&w);
        free(want);
        json_decref(j);
    }
    jw_f64_prec(&w, 1e20, 10);
    expect(&w, "1e20");
    jw_f64_prec(&w, 1.0, 10);
    expect(&w, "1.0");
    /* a precision below 1 is jansson's default (JSON_REAL_PRECISION(0):
     * 17 digits), one past 30 is 30 digits (jw.h) */
    json_t *tenth = json_real(0.1);
    char *deflt = json_dumps(tenth, JSON_ENCODE_ANY | JSON_REAL_PRECISION(0));
    assert_string_equal(deflt, "0.10000000000000001");
    free(deflt);
    json_decref(tenth);
    jw_f64_prec(&w, 0.1, 0);
    expect(&w, "0.10000000000000001");
    jw_f64_prec(&w, 0.1, 50);
    expect(&w, "0.100000000000000005551115123126");
}

static void test_nesting(void **state) {
    (void)state;
    jw_buf w = {0};
    jw_obj(&w);
    jw_key(&w, "a");
    jw_arr(&w);
    jw_i64(&w, 1);
    jw_i64(&w, 2);
    jw_obj(&w);
    jw_kv_null(&w, "b");
    jw_end(&w);
    jw_end(&w);
    jw_kv_bool(&w, "c", true);
    jw_key(&w, "d");
    jw_arr(&w);
    jw_end(&w);
    jw_key(&w, "e");
    jw_obj(&w);
    jw_end(&w);
    jw_kv_str(&w, "k\"", "v");
    jw_kv_raw(&w, "r", "[1,{}]");
    jw_kv_f64(&w, "f", 0.5);
    jw_kv_i64(&w, "i", -3);
    jw_kv_u64(&w, "u", 3);
    jw_end(&w);
    expect(&w, "{\"a\":[1,2,{\"b\":null}],\"c\":true,\"d\":[],\"e\":{},\"k\\\"\":\"v\","
               "\"r\":[1,{}],\"f\":0.5,\"i\":-3,\"u\":3}");
    /* a close with nothing open, or nesting past the limit, is an error */
    jw_end(&w);
    assert_true(w.oom);
    jw_free(&w);
    for (int i = 0; i <= JW_MAX_DEPTH; i++) jw_arr(&w);
    assert_true(w.oom);
    jw_free(&w);
    /* jw_finish: an open container is an error */
    jw_arr(&w);
    assert_int_equal(jw_finish(&w), -1);
    jw_free(&w);
}

/* A document touching every writer, written the same way each time. */
static void write_doc(jw_buf *w, int n) {
    jw_obj(w);
    jw_kv_str(w, "name", "stream \"test\"");
    jw_key(w, "rows");
    jw_arr(w);
    for (int i = 0; i < n; i++) {
        jw_obj(w);
        jw_kv_i64(w, "i", (int64_t)i * 7919 - 50000);
        jw_kv_f64(w, "x", i / 3.0);
        jw_kv_str(w, "s", i % 3 ? "abc\n" : "ünï\x01");
        jw_kv_bool(w, "b", i & 1);
        jw_end(w);
    }
    jw_end(w);
    jw_end(w);
}

typedef struct memsink {
    char *s;
    size_t len, cap, calls, most;
    int fail_after;   /* fail on this call (1-based); 0: never */
} memsink;

static int mem_sink(void *ctx, const char *p, size_t n) {
    memsink *m = ctx;
    m->calls++;
    if (m->fail_after && (int)m->calls >= m->fail_after) return -1;
    if (m->len + n > m->cap) {
        m->cap = (m->len + n) * 2;
        m->s = realloc(m->s, m->cap);
        assert_non_null(m->s);
    }
    memcpy(m->s + m->len, p, n);
    m->len += n;
    if (n > m->most) m->most = n;
    return 0;
}

static void test_push_streaming(void **state) {
    (void)state;
    jw_buf whole = {0};
    write_doc(&whole, 3000);
    assert_false(whole.oom);
    const size_t chunks[] = {1, 2, 7, 64, 4096, 1 << 20};
    for (size_t c = 0; c < sizeof chunks / sizeof *chunks; c++) {
        memsink m = {0};
        jw_buf w;
        jw_init_sink(&w, mem_sink, &m, chunks[c]);
        write_doc(&w, 3000);
        assert_int_equal(jw_finish(&w), 0);
        assert_int_equal(m.len, whole.len);
        assert_memory_equal(m.s, whole.s, whole.len);
        assert_int_equal(w.flushed, whole.len);
        /* memory stays at the chunk (a single value may pass it: the
         * longest here is under 64 bytes) */
        assert_true(w.cap <= 2 * (chunks[c] + 64) + 4096);
        if (chunks[c] >= 64 && chunks[c] < whole.len) assert_true(m.most <= chunks[c]);
        jw_free(&w);
        free(m.s);
    }
    /* a failing sink: sticky, and jw_finish says so */
    memsink m = {.fail_after = 2};
    jw_buf w;
    jw_init_sink(&w, mem_sink, &m, 100);
    write_doc(&w, 100);
    assert_true(w.oom);
    assert_int_equal(jw_finish(&w), -1);
    jw_free(&w);
    free(m.s);
    jw_free(&whole);
}

static void test_pull_streaming(void **state) {
    (void)state;
    jw_buf whole = {0};
    write_doc(&whole, 2000);
    /* write in slices, read out in pieces of odd sizes between them */
    const size_t reads[] = {1, 3, 100, 4097};
    for (size_t r = 0; r < sizeof reads / sizeof *reads; r++) {
        jw_buf w = {0};
        char *got = malloc(whole.len + 1), piece[4097];
        size_t n = 0;
        jw_obj(&w);
        jw_kv_str(&w, "name", "stream \"test\"");
        jw_key(&w, "rows");
        jw_arr(&w);
        for (int i = 0; i < 2000; i++) {
            jw_obj(&w);
            jw_kv_i64(&w, "i", (int64_t)i * 7919 - 50000);
            jw_kv_f64(&w, "x", i / 3.0);
            jw_kv_str(&w, "s", i % 3 ? "abc\n" : "ünï\x01");
            jw_kv_bool(&w, "b", i & 1);
            jw_end(&w);
            if (i % 5 == 0) n += jw_read(&w, got + n, reads[r]);
            /* reading out as fast as it is written keeps the buffer small */
            if (reads[r] == 4097) assert_true(w.cap <= 8192);
        }
        jw_end(&w);
        jw_end(&w);
        size_t k;
        while ((k = jw_read(&w, piece, reads[r])) > 0) {
            memcpy(got + n, piece, k);
            n += k;
        }
        assert_int_equal(jw_pending(&w), 0);
        assert_int_equal(n, whole.len);
        assert_memory_equal(got, whole.s, n);
        assert_int_equal(w.flushed, whole.len);
        free(got);
        jw_free(&w);
    }
    /* jw_take after partial reads gives what is left */
    jw_buf w = {0};
    jw_puts(&w, "abcdef");
    char two[2];
    assert_int_equal(jw_read(&w, two, 2), 2);
    size_t len;
    char *rest = jw_take(&w, &len);
    assert_string_equal(rest, "cdef");
    assert_int_equal(len, 4);
    free(rest);
    /* a read takes at most what it is given room for */
    jw_puts(&w, "abcdef");
    char five[7] = "------";
    assert_int_equal(jw_read(&w, five, 5), 5);
    assert_memory_equal(five, "abcde-", 6);
    assert_int_equal(jw_pending(&w), 1);
    jw_free(&w);
    /* nothing written: an empty text, not none */
    rest = jw_take(&w, &len);
    assert_non_null(rest);
    assert_string_equal(rest, "");
    assert_int_equal(len, 0);
    free(rest);
    jw_free(&whole);
}

/* ---- the trace writer in steps -------------------------------------------------- */

static void make_trace(trace *t) {
    trace_init(t);
    trace_set_name(t, "steps \"run\"");
    trace_set_source(t, "simulation");
    t->origin = -5;
    trace_set_meta(t, "k", "v");
    for (int i = 0; i < 40; i++) {
        trace_kernel *k = trace_add_kernel(t);
        k->name = trace_intern(t, i % 2 ? "kern" : "kërn\n");
        k->stream = trace_intern(t, "S1");
        k->process = trace_intern(t, "P0");
        k->issue = i * 10;
        k->first_block = i * 10 + 1;
        k->end = i * 10 + 9;
        k->blocks = 3;
        k->grid[0] = 3; k->grid[1] = 1; k->grid[2] = 1;
    }
    for (int i = 0; i < 1000; i++) {
        trace_block *b = trace_add_block(t);
        b->kernel = i % 40;
        b->index = i / 40;
        b->sm = i % 7;
        b->start = i == 5 ? TRACE_NONE : (int64_t)i * 3;
        b->end = INT64_MAX - i;
    }
    for (int i = 0; i < 30; i++) {
        trace_copy *c = trace_add_copy(t);
        c->name = trace_intern(t, "copy");
        c->bytes = 1 << i;
        c->start = i;
        c->end = i + 1;
        c->engine = i % 2 ? -1 : 1;
    }
    assert_non_null(trace_add_pause(t, 3, 10, 11));
    assert_false(t->oom);
}

typedef struct batches {
    const trace *t;
    size_t at, size;
} batches;

static int next_batch(void *ctx, const trace_block **v, size_t *n) {
    batches *b = ctx;
    size_t left = b->t->blocks.n - b->at;
    *n = left < b->size ? left : b->size;
    *v = b->t->blocks.v + b->at;
    b->at += *n;
    return 0;
}

static int fail_batch(void *ctx, const trace_block **v, size_t *n) {
    (void)ctx; (void)v; (void)n;
    return -1;
}

static void test_trace_steps(void **state) {
    (void)state;
    trace t;
    make_trace(&t);
    tj_buf whole = {0};
    assert_int_equal(tj_write_trace(&t, &whole), 0);
    /* the records as they always were written */
    assert_non_null(strstr(whole.s, "{\"kernel\":5,\"index\":0,\"sm\":5,\"start\":null,\"end\":"
                                    "9223372036854775802}"));
    assert_non_null(strstr(whole.s, ",\n\"pauses\":[{\"block\":3,\"start\":10,\"end\":11}]}\n"));
    assert_null(strstr(whole.s, "warp_epochs"));
    const size_t untils[] = {1, 10, 333, 65536};
    const size_t sizes[] = {1, 7, 1000, 5000};
    for (size_t u = 0; u < sizeof untils / sizeof *untils; u++) {
        for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
            batches src = {&t, 0, sizes[z]};
            tj_block_src bs = {&src, next_batch};
            tj_stream s;
            tj_stream_init(&s, &t, z % 2 ? &bs : NULL);
            jw_buf w = {0};
            char *got = malloc(whole.len + 1);
            size_t n = 0;
            int rc, steps = 0;
            while ((rc = tj_stream_step(&s, &w, untils[u])) == 1) {
                n += jw_read(&w, got + n, whole.len - n);
                steps++;
            }
            assert_int_equal(rc, 0);
            n += jw_read(&w, got + n, whole.len + 1 - n);
            assert_int_equal(n, whole.len);
            assert_memory_equal(got, whole.s, n);
            if (untils[u] < 1000) assert_true(steps > 20);
            free(got);
            jw_free(&w);
        }
    }
    /* pushed through a sink in small chunks: the same bytes */
    memsink m = {0};
    jw_buf w;
    jw_init_sink(&w, mem_sink, &m, 100);
    assert_int_equal(tj_write_trace(&t, &w), 0);
    assert_int_equal(jw_finish(&w), 0);
    assert_int_equal(m.len, whole.len);
    assert_memory_equal(m.s, whole.s, whole.len);
    jw_free(&w);
    free(m.s);
    /* a block source that fails stops the stream */
    tj_block_src bad = {NULL, fail_batch};
    tj_stream s;
    tj_stream_init(&s, &t, &bad);
    jw_buf f = {0};
    assert_int_equal(tj_stream_step(&s, &f, SIZE_MAX), -1);
    jw_free(&f);
    jw_free(&whole);
    trace_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_integers),
        cmocka_unit_test(test_strings),
        cmocka_unit_test(test_doubles),
        cmocka_unit_test(test_nesting),
        cmocka_unit_test(test_push_streaming),
        cmocka_unit_test(test_pull_streaming),
        cmocka_unit_test(test_trace_steps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
