/* jw.h -- a JSON writer for the hot paths: responses of thousands to millions
 * of records and the trace files of `schedlab simulate` / `export`.
 *
 * Why not jansson (json_pack + json_dumps): that builds a tree of one
 * allocation per value, then prints it with printf. jw appends text straight
 * into one growable buffer: integers are formatted by hand (two digits per
 * step), plain ASCII strings are copied in runs, and nothing is allocated per
 * value. It writes exactly the bytes trace_json.c always wrote (the golden
 * traces pin them), so both go through the same code.
 *
 * Three ways to use one:
 *   - whole buffer: `jw_buf w = {0};` (or jw_init), write, then w.s / w.len hold
 *     the NUL-terminated text (jw_take hands it over; jw_free releases it);
 *   - push streaming: jw_init_sink(&w, jw_file_sink, stdout, 1 << 16): every
 *     time the buffer would pass `chunk` bytes it is handed to the sink, so
 *     memory stays at about `chunk` whatever the output's size;
 *   - pull streaming (libmicrohttpd's content-reader callback, see
 *     http_set_stream in http.h): a producer appends records until
 *     jw_pending() >= the chunk it wants, and the reader copies bytes out with
 *     jw_read().
 * All three give identical bytes for the same calls (tests/unit/test_jw.c).
 *
 * Structure: jw_obj / jw_arr open a container and jw_end closes the
 * innermost one; inside an object call jw_key before each value. Commas are
 * written for you. The raw functions (jw_puts, jw_putc, jw_putn, jw_u64_raw,
 * jw_i64_raw) append text with no comma logic at all, for callers that lay
 * out fixed records by hand (trace_json.c's tj_put_*); mixing both styles
 * inside one container is the caller's business.
 *
 *     jw_buf w = {0};
 *     jw_obj(&w);
 *       jw_key(&w, "from"); jw_i64(&w, from);
 *       jw_kv_str(&w, "mode", "blocks");
 *       jw_key(&w, "blocks"); jw_arr(&w);
 *         for (...) { jw_obj(&w); jw_kv_i64(&w, "sm", sm); jw_end(&w); }
 *       jw_end(&w);
 *     jw_end(&w);
 *     if (w.oom) ...error...; else use w.s, w.len;  jw_free(&w);
 *
 * Errors are sticky: after an allocation or a sink fails, `oom` is set and
 * every later write is a no-op; check it (or jw_finish's result) once at the
 * end. Nesting deeper than JW_MAX_DEPTH sets `oom` too.
 *
 * Numbers: jw_i64 / jw_u64 write any value exactly, INT64_MIN included.
 * jw_f64 writes "%.17g" (round-trips every double; what trace files hold);
 * jw_f64_prec(w, v, p) writes what jansson's json_dumps with
 * JSON_REAL_PRECISION(p) writes ("%.*g", ".0" added to integral values,
 * exponent without '+' and leading zeros), so a handler moved off jansson
 * answers the same bytes; p below 1 is jansson's default, 17, and p past
 * 30 is taken as 30. Non-finite doubles are written as null.
 *
 * Strings: UTF-8 is copied as is; '"', '\\' and control characters are
 * escaped (\n, \t, \r, else \u00XX); bytes that are not valid UTF-8 become
 * U+FFFD, so the output is always valid JSON. A NULL string is null. */
#ifndef SERVER_JW_H
#define SERVER_JW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JW_MAX_DEPTH 64

/* Where a streaming writer's bytes go: return 0, or non-zero to fail (the
 * writer then sets `oom` and stops writing). */
typedef int (*jw_sink_fn)(void *ctx, const char *p, size_t n);

typedef struct jw_buf {
    char *s;            /* the text not yet handed on, NUL-terminated while !oom */
    size_t len, cap;    /* bytes in s (from s[0]); allocated */
    bool oom;           /* sticky failure: out of memory, a sink error, too deep */
    /* streaming */
    jw_sink_fn sink;    /* NULL: whole-buffer (or pull) mode */
    void *sink_ctx;
    size_t chunk;       /* push mode: flush when the buffer would pass this */
    size_t head;        /* pull mode: bytes of s already read out by jw_read */
    uint64_t flushed;   /* bytes handed to the sink / read out so far */
    /* structure */
    unsigned depth;                 /* open containers */
    bool after_key;                 /* a key was written, its value not yet */
    uint8_t has[JW_MAX_DEPTH];      /* per open container: bit 0 holds a value, bit 1 object */
} jw_buf;

void jw_init(jw_buf *w);                          /* = {0}: whole-buffer mode */
/* Push mode: hand the text to `sink` in pieces of about `chunk` bytes
 * (0: 64 KiB). */
void jw_init_sink(jw_buf *w, jw_sink_fn sink, void *ctx, size_t chunk);
/* A sink that fwrite()s to the FILE * given as ctx. */
int jw_file_sink(void *ctx, const char *p, size_t n);
/* A sink that write()s to the file descriptor (int) pointed to by ctx. */
int jw_fd_sink(void *ctx, const char *p, size_t n);

void jw_free(jw_buf *w);                          /* releases the buffer; w is {0} after */
/* Whole-buffer mode: the malloc'ed text (NUL-terminated) and its length; w is
 * empty after. NULL if oom (the buffer is freed). */
char *jw_take(jw_buf *w, size_t *len);
/* Push mode: hand what is buffered to the sink now. 0, or -1 if oom/failed. */
int jw_flush(jw_buf *w);
/* The end of a streamed text: flushes; -1 if anything failed on the way or a
 * container is still open. */
int jw_finish(jw_buf *w);

/* Pull mode: bytes written and not yet read out; copy up to `max` of them to
 * dst and drop them from the buffer. Returns the number copied. */
size_t jw_pending(const jw_buf *w);
size_t jw_read(jw_buf *w, char *dst, size_t max);

/* ---- structured writing (commas handled) ----------------------------------- */
void jw_obj(jw_buf *w);                   /* { */
void jw_arr(jw_buf *w);                   /* [ */
void jw_end(jw_buf *w);                   /* } or ], whichever is open */
void jw_key(jw_buf *w, const char *k);    /* "k": (escaped), inside an object */
void jw_keyn(jw_buf *w, const char *k, size_t n);

void jw_i64(jw_buf *w, int64_t v);
void jw_u64(jw_buf *w, uint64_t v);
void jw_f64(jw_buf *w, double v);               /* %.17g; null if not finite */
void jw_f64_prec(jw_buf *w, double v, int prec);  /* as jansson JSON_REAL_PRECISION(prec) */
void jw_bool(jw_buf *w, bool v);
void jw_null(jw_buf *w);
void jw_str(jw_buf *w, const char *s);          /* null for NULL */
void jw_strn(jw_buf *w, const char *s, size_t n);   /* n bytes (NULs escaped as \u0000) */
void jw_raw(jw_buf *w, const char *json);       /* a ready JSON value, as one value */
void jw_rawn(jw_buf *w, const char *json, size_t n);

/* key + value in one call */
void jw_kv_i64(jw_buf *w, const char *k, int64_t v);
void jw_kv_u64(jw_buf *w, const char *k, uint64_t v);
void jw_kv_f64(jw_buf *w, const char *k, double v);
void jw_kv_bool(jw_buf *w, const char *k, bool v);
void jw_kv_null(jw_buf *w, const char *k);
void jw_kv_str(jw_buf *w, const char *k, const char *s);
void jw_kv_raw(jw_buf *w, const char *k, const char *json);

/* ---- raw text (no commas, no structure) -------------------------------------- */
void jw_putn(jw_buf *w, const char *p, size_t n);
void jw_puts(jw_buf *w, const char *s);
void jw_putc(jw_buf *w, char c);
void jw_i64_raw(jw_buf *w, int64_t v);
void jw_u64_raw(jw_buf *w, uint64_t v);
void jw_str_raw(jw_buf *w, const char *s);      /* a JSON string (null for NULL) */
void jw_strn_raw(jw_buf *w, const char *s, size_t n);

/* Decimal digits of v into buf (at least 20 bytes; no NUL); returns the count. */
size_t jw_fmt_u64(char *buf, uint64_t v);
size_t jw_fmt_i64(char *buf, int64_t v);   /* at least 21 bytes */

#endif
