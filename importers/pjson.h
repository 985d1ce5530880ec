/* pjson.h -- a small pull (token-at-a-time) JSON reader for importers that
 * must not hold a whole document: the PyTorch profiler importer
 * (pytorch_json.c) reads traces of hundreds of MB through it, one event at
 * a time, with memory bounded by the longest string (PJ_MAX_STRING) and the
 * nesting depth (PJ_MAX_DEPTH), whatever the file size.
 *
 * Why not jansson (the project's JSON library): it builds the whole tree.
 * Why not libyajl (Debian's streaming parser): upstream's last release is
 * from 2014 and its callback interface turns a reader of nested objects
 * inside out; a pull reader keeps the importer a plain recursive descent.
 * This one is RFC 8259 strict (no comments, no trailing commas, no NaN),
 * validated token by token, and fuzzed (fuzz/fuzz_pytorch_json.c).
 *
 * Input comes in chunks: the bytes given to pj_init, then whatever `refill`
 * returns until it returns a zero length (end of input) or -1 (a read error,
 * its message in the reader's err). Strings are decoded (escapes, \u
 * surrogate pairs to UTF-8) into the reader's own buffer, valid until the
 * next pj_next; numbers are kept as their source text there, checked
 * against the JSON grammar, for the caller to convert exactly. */
#ifndef IMPORTERS_PJSON_H
#define IMPORTERS_PJSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PJ_MAX_DEPTH 64
#define PJ_MAX_STRING (1u << 20)    /* a kernel name of a template-heavy library is ~10 KB */

typedef enum pj_tok {
    PJ_ERROR = -1,
    PJ_END = 0,          /* the one top-level value is complete and only whitespace followed */
    PJ_OBJ,              /* '{' */
    PJ_OBJ_END,          /* '}' */
    PJ_ARR,              /* '[' */
    PJ_ARR_END,          /* ']' */
    PJ_KEY,              /* an object key, in r->str (the ':' is consumed) */
    PJ_STRING,           /* in r->str */
    PJ_NUMBER,           /* its text in r->str */
    PJ_TRUE,
    PJ_FALSE,
    PJ_NULL
} pj_tok;

/* Returns 0 with *buf / *len set (len 0: end of input) or -1 (then it
 * writes its message with pj_fail). */
typedef int (*pj_refill_fn)(void *user, const unsigned char **buf, size_t *len);

typedef struct pj_reader {
    const unsigned char *chunk, *p, *end;   /* the current chunk, the next byte, its end */
    pj_refill_fn refill;
    void *user;
    bool eof;
    uint64_t before;                /* bytes in the chunks before this one */
    char *str;                      /* the last string, key or number, NUL-terminated */
    size_t len, cap;
    uint8_t stack[PJ_MAX_DEPTH];    /* 'o' or 'a' per open container */
    int depth;
    int state;                      /* what may come next (pjson.c) */
    bool failed;
    char err[160];
} pj_reader;

/* refill may be NULL when `data` is the whole input. */
void pj_init(pj_reader *r, const unsigned char *data, size_t len, pj_refill_fn refill,
             void *user);
void pj_free(pj_reader *r);
pj_tok pj_next(pj_reader *r);
/* Skip the rest of a value whose first token `t` was just read (nothing
 * for a scalar, up to the matching close for a container). 0, or -1. */
int pj_skip(pj_reader *r, pj_tok t);
/* The byte offset of the next unread byte of the (decompressed) input. */
uint64_t pj_offset(const pj_reader *r);
/* Record an error (the first one wins); returns PJ_ERROR. */
pj_tok pj_fail(pj_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
